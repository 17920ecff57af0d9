# prefscore: the scoring API in a container.
#   docker build -t prefscore .
#   docker run -p 8000:8000 -v prefscore-data:/data -e PREFSCORE_ADMIN_KEY=change-me prefscore
# (SQLite in the /data volume). With PostgreSQL: docker compose up (docker-compose.yml, docs/deployment.md).
#
# BASE: any Debian-like image with Python >= 3.11 and its venv module, e.g. the official
# python:3.11-slim (the default) or Debian's own (debian:bookworm plus python3-venv).
ARG BASE=python:3.11-slim
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/prefscore \
    PATH=/opt/prefscore/bin:$PATH

# The fonts the sheet's picture is drawn with (sheet.png, app/render/png.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/prefscore
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
# A venv of its own: never pip into the base image's interpreter (Debian's refuses it, PEP 668).
# Compiled to bytecode here: the user cannot write it at run time, and a replica starts faster.
RUN python3 -m venv /opt/prefscore \
    && /opt/prefscore/bin/pip install . \
    && useradd --uid 10001 --user-group --home-dir /srv/prefscore --no-create-home --shell /usr/sbin/nologin prefscore \
    && mkdir /data \
    && chown prefscore:prefscore /data

USER prefscore
WORKDIR /data
# The default database: a SQLite file on the /data volume. docker-compose.yml sets a PostgreSQL URL.
ENV DATABASE_URL=sqlite:////data/prefscore.db
VOLUME ["/data"]
EXPOSE 8000
# uvicorn finishes the requests in flight on SIGTERM (docker stop), then exits.
STOPSIGNAL SIGTERM

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request, sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4).status == 200 else 1)"]

# `prefscore serve` upgrades the database to the newest migration, then runs uvicorn.
CMD ["prefscore", "serve", "--host", "0.0.0.0", "--port", "8000"]
