#!/usr/bin/env bash
# The project's test command: lint (ruff; ESLint for the page's JavaScript), type-check, build
# the documentation site, then the test suite.  Exits non-zero on any failure, including pytest
# finding no tests (exit code 5).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
status=0
echo "== ruff"; $PY -m ruff check src tests || status=1
$PY -m ruff format --check src tests scripts research || status=1
echo "== mypy"; $PY -m mypy || status=1
# The shipped networks' ONNX files are their .pt's exports, byte for byte.
echo "== onnx"; $PY scripts/export_onnx.py --check || status=1
echo "== eslint"; npx --no-install eslint src/sparring/service/static || status=1
echo "== docs"
# The site (mkdocs.yml) into a temporary folder: --strict fails on a broken link, a page left
# out of the navigation or an API name that does not resolve.  Without MkDocs it is skipped,
# except under CI (SPARRING_CI=1), where it fails.
if $PY -c "import mkdocs, material, mkdocstrings" 2>/dev/null; then
  site=$(mktemp -d)
  start=$(date +%s%N)
  if NO_MKDOCS_2_WARNING=1 $PY -m mkdocs build --strict -d "$site" 2>&1 | { grep -v '^INFO' || true; }; then
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "site built in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
  else
    echo "mkdocs build --strict failed"; status=1
  fi
  rm -rf "$site"
elif [ "${SPARRING_CI:-}" = 1 ]; then
  echo "mkdocs is not installed (pip install -e '.[dev]'): failing under SPARRING_CI=1"; status=1
else
  echo "skipped: mkdocs is not installed (pip install -e '.[dev]')"
fi
echo "== pytest"
$PY -m pytest -q "$@"
rc=$?
if [ $rc -eq 5 ]; then echo "pytest collected no tests: failing"; fi
[ $rc -ne 0 ] && status=1
exit $status
