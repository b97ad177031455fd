#!/usr/bin/env bash
# Creates or updates the Python environment that @pilotrl/policy-tfjs's Hugging Face engine tests
# compare against: transformers, torch, safetensors and tokenizers, pinned in requirements.txt, in
# .venv/policy-tfjs-reference. PyPI's Linux torch is the CUDA build: about 6 GB, a minute with uv the
# first time (no GPU is needed; the TRL and tinker references link the same files from uv's cache).
# It ends by making a tiny Qwen3 and Llama (make_tiny_models.py, no model hub) and running one forward
# pass of each (smoke.py); a second run only does that.
#   packages/policy-tfjs/reference/setup.sh      (from any directory)
# Needs Python 3.10-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REFERENCE_NOTE="PyPI's torch is the CUDA build: about 6 GB" \
  exec "$here/../../../tooling/reference-venv.sh" policy-tfjs "$here/requirements.txt" \
  "$here/smoke.py"
