#!/usr/bin/env bash
# Creates or updates the Python environment of the real Tinker-compatible server that @pilotrl/tinker's
# engine tests run against: SkyRL 0.4.0's `skyrl.tinker.api` with the JAX backend (CPU is enough), the
# official `tinker` SDK it depends on, torch, aiohttp and uv, pinned in requirements.txt, in
# .venv/tinker-reference. PyPI's Linux torch is the CUDA build: about 6 GB, a minute with uv the first
# time. It ends by training one step on a tiny Qwen3 through the server (smoke.py); a second run only
# does that.
#   packages/tinker/reference/setup.sh      (from any directory)
# Needs Python 3.12 (SkyRL requires 3.12 or newer; tooling/reference-venv.sh stops at 3.12) and PyPI.
# PYTHON=/path/to/python3.12 picks the interpreter; otherwise python3.12 on PATH or a pyenv 3.12.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../../tooling/pick-python.sh
source "$here/../../../tooling/pick-python.sh"
# shellcheck disable=SC2046
if ! PYTHON="$(pick_python 3.12 3.12 python3.12 $(compgen -G "$(pyenv root 2>/dev/null)/versions/3.12*/bin/python3.12"))"; then
  echo "tinker reference: SkyRL needs Python 3.12; none found (set PYTHON=/path/to/python3.12)" >&2
  exit 1
fi
export PYTHON
REFERENCE_NOTE="PyPI's torch is the CUDA build: about 6 GB" \
  exec "$here/../../../tooling/reference-venv.sh" tinker "$here/requirements.txt" \
  "$here/smoke.py"
