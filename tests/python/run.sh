#!/bin/sh
# tests/python/run.sh: the Python package's tests (make python-test, in make test).
#
# A fresh venv in $B/py-venv (python3 -m venv), numpy, pytest and ml_dtypes from
# the package index (pip's cache makes it quick after the first time), the package
# installed from python/ as a user would (pip install ./python, which copies
# $B/libtile2cu.so.0 into it), then pytest on tests/python from outside the
# checkout's python/ directory, so the installed copy is the one imported. The
# compile cache is $B/py-cache.
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
ROOT=$(pwd)
VENV=$ROOT/$B/py-venv
[ -f "$B/libtile2cu.so.0" ] || { echo "python-test: $B/libtile2cu.so.0 missing: run make first" >&2; exit 1; }
rm -rf "$VENV"
if ! python3 -m venv "$VENV"; then
  echo "python-test: python3 -m venv failed: install python3-venv (tools/setup.sh does)" >&2
  exit 1
fi
PIP="$VENV/bin/python -m pip --disable-pip-version-check -q"
if ! $PIP install numpy pytest ml_dtypes; then
  echo "python-test: cannot install numpy, pytest and ml_dtypes from the package index" >&2
  exit 1
fi
TILE2CU_BUILD=$ROOT/$B $PIP install ./python
cd "$ROOT/tests/python"
TILE2CU_CACHE_DIR=$ROOT/$B/py-cache "$VENV/bin/python" -m pytest -q -p no:cacheprovider -rs test_tile2cu.py test_gpu.py "$@"
