# Sourced by scripts/serve and scripts/test: make .venv (python3 -m venv) and install the
# project into it, again only when pyproject.toml changed since the last install.
ensure_venv() {
    local target="$1"
    local python="${PYTHON:-python3}"
    if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
        echo "prefscore needs Python 3.11 or newer as '$python' (set PYTHON=/path/to/python3.11)" >&2
        exit 1
    fi
    if [ ! -x .venv/bin/python ]; then
        echo "creating .venv" >&2
        "$python" -m venv .venv
    fi
    local stamp=".venv/.prefscore-installed"
    local want
    want="$target $(cat pyproject.toml | .venv/bin/python -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
    if [ ! -f "$stamp" ] || ! grep -qxF "$want" "$stamp" || ! .venv/bin/python -c 'import app, migrations' 2>/dev/null; then
        echo "installing prefscore into .venv ($target)" >&2
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$target"
        echo "$want" >> "$stamp"
    fi
}
