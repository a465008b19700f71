#!/usr/bin/env bash
# The project's test command: lint (ruff; ESLint for the page's JavaScript), type-check, then
# the test suite.  Exits non-zero on any failure, including pytest finding no tests (exit
# code 5).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
status=0
echo "== ruff"; $PY -m ruff check src tests || status=1
$PY -m ruff format --check src tests scripts research || status=1
echo "== mypy"; $PY -m mypy || status=1
echo "== eslint"; npx --no-install eslint src/sparring/service/static || status=1
echo "== pytest"
$PY -m pytest -q "$@"
rc=$?
if [ $rc -eq 5 ]; then echo "pytest collected no tests: failing"; fi
[ $rc -ne 0 ] && status=1
exit $status
