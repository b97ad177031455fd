#!/usr/bin/env bash
# Creates or updates the Python environment of the TRL recipe (grpo_alfworld.py): PyPI trl,
# transformers, torch and openenv-core, pinned in requirements.txt, in .venv/env-server-trl-reference.
# PyPI's Linux torch is the CUDA build and brings its nvidia-* wheels: about 6 GB, a minute with uv the
# first time (no GPU is needed to run it; the tinker reference links the same files from uv's cache).
# It ends with one forward pass of a tiny Llama (smoke.py); a second run only does that.
#   packages/env-server/reference/trl/setup.sh      (from any directory)
# Needs Python 3.10-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REFERENCE_NOTE="PyPI's torch is the CUDA build: about 6 GB" \
  exec "$here/../../../../tooling/reference-venv.sh" env-server-trl "$here/requirements.txt" \
  "$here/smoke.py"
