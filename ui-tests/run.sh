#!/usr/bin/env bash
# Build the labextension, install the UI-test deps and Debian's Chromium if missing, then run the
# Galata tests against the real mlestar_jupyter server extension and the offline backend.
#
#   ui-tests/run.sh [playwright args...]      e.g. ui-tests/run.sh -g Reject
#
# Needs: the Python package importable (pip install -e . or pip install .), node >= 20, jlpm
# (from jupyter-builder / jupyterlab), port 8888 free (one Galata run at a time). Artifacts:
# ui-tests/test-results/panel-{20s,60s,end}.png (the screenshots in docs/images come from there).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

cd "$ROOT"
if [ ! -d node_modules ]; then
  jlpm install
fi
if [ ! -f mlestar_jupyter/labextension/static/style.js ] || [ -n "${MLESTAR_REBUILD:-}" ]; then
  jlpm build:prod
fi

cd "$HERE"
if [ ! -d node_modules ]; then
  jlpm install
fi

CHROMIUM="${MLESTAR_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
export MLESTAR_CHROMIUM="$CHROMIUM"

CI=1 jlpm playwright test "$@"
