#!/usr/bin/env bash
# Creates or updates the Python environment with TensorBoard's own event reader and writer (PyPI
# tensorboard, pinned in requirements.txt), with which the engine tests read the event files of a
# real run (read_scalars.py) and write files our reader must read (write_scalars.py). It ends by
# writing a scalar with TensorBoard's writer and finding it with its reader (smoke.py). Idempotent.
#   apps/pilotrl/reference/tensorboard/setup.sh      (from any directory)
# Needs Python 3.9-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../../../tooling/reference-venv.sh" tensorboard "$here/requirements.txt" \
  "$here/smoke.py"
