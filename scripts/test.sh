#!/usr/bin/env bash
# Install the test extras and run the whole test suite:
#   pytest (unit, real kernels, server handlers), jest (labextension logic), Galata (real browser).
# Lint (ruff), types (mypy), import layers (import-linter), docstrings (interrogate) first. The built labextension is committed (hatch_build.py rebuilds it
# only when labextension/src changed); jest and Galata need node >= 20.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1} OMP_WAIT_POLICY=PASSIVE
python -m pip install -q -e ".[test]"
python -m ruff check .
python -m ruff format --check .
python -m mypy
lint-imports                 # layer contracts (pyproject: [tool.importlinter])
interrogate mlestar_jupyter  # public docstrings (pyproject: [tool.interrogate])
python -m pytest -q -p no:cacheprovider
[ -d node_modules ] || jlpm install
jlpm lint:check
jlpm test
bash ui-tests/run.sh
