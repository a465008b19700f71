#!/usr/bin/env bash
# Install everything sparring needs on a fresh machine: system packages (if any are
# missing and we are root) and a virtual environment in .venv with sparring and its
# development tools.  Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
SYSTEM_PACKAGES=(stockfish chromium gnugo postgresql)   # Debian packages sparring needs (stockfish: se-match --cpl-depth; chromium: the browser tests, driven by Playwright, which never downloads its own browser; gnugo: the GTP engine tests against GNU Go; postgresql: the store's tests and the two-server test on PostgreSQL, server started by scripts/pg_test_server.sh)

if ((${#SYSTEM_PACKAGES[@]})); then
  missing=()
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    else
      echo "install.sh: please install: ${missing[*]}" >&2
    fi
  fi
fi

# ESLint for the page's JavaScript (package.json; node_modules/ is git-ignored): Node.js and
# npm from Debian where they are missing, then the locked packages from the npm registry.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
  else
    echo "install.sh: please install: nodejs npm" >&2
  fi
fi
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -m pip install -q -e ".[dev]" 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c "import sparring, numba, pyspiel, bitbully, fastapi, uvicorn, sqlalchemy, psycopg, httpx, playwright.sync_api, ray, mkdocs, material, mkdocstrings; print('sparring', sparring.__version__, 'installed in .venv')"
