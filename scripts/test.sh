#!/usr/bin/env bash
# Install the test extras and run the whole test suite:
#   pytest (unit, real kernels, server handlers), jest (labextension logic), Galata (real browser).
# Lint (ruff), types (mypy), import layers (import-linter), docstrings (interrogate) first. The built labextension is committed (hatch_build.py rebuilds it
# only when labextension/src changed); jest and Galata need node >= 20.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1} OMP_WAIT_POLICY=PASSIVE
phase() { echo "test.sh: $1 at ${SECONDS}s"; }  # each phase's start, so a slow CI shows where
phase "install"
python -m pip install -q -e ".[test]"
phase "lint"
python -m ruff check .
python -m ruff format --check .
python -m mypy
lint-imports                 # layer contracts (pyproject: [tool.importlinter])
interrogate mlestar_jupyter  # public docstrings (pyproject: [tool.interrogate])
phase "pytest"
# two workers (pytest-xdist): a test mostly runs one kernel at a time, so one worker left a core idle
# (stop 52's CI: 79 min of pytest on one worker). PYTEST_WORKERS=0 runs them in this process.
python -m pytest -q -p no:cacheprovider --durations=30 -n "${PYTEST_WORKERS:-2}"
phase "jest"
[ -d node_modules ] || jlpm install
jlpm lint:check
jlpm test
phase "galata"
bash ui-tests/run.sh
phase "done"
