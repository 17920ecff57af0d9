# prefscore: the scoring API in a container.
#   docker build -t prefscore .
#   docker run -p 8000:8000 -e PREFSCORE_ADMIN_KEY=change-me prefscore     (SQLite in /data)
# With PostgreSQL: docker compose up (see docker-compose.yml and the README).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/prefscore
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
RUN pip install . \
    && useradd --system --uid 10001 --user-group --home-dir /srv/prefscore --no-create-home prefscore \
    && mkdir /data \
    && chown prefscore:prefscore /data

USER prefscore
WORKDIR /data
# The default database: a SQLite file on the /data volume. docker-compose.yml sets a PostgreSQL URL.
ENV DATABASE_URL=sqlite:////data/prefscore.db
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request, sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4).status == 200 else 1)"]

# `prefscore serve` upgrades the database to the newest migration, then runs uvicorn.
CMD ["prefscore", "serve", "--host", "0.0.0.0", "--port", "8000"]
