#!/usr/bin/env bash
# Creates or updates the Python environment that runs the reference BabyAI engine (Minigrid and
# Gymnasium, pinned PyPI releases in requirements.txt, driven by our drive-minigrid.py) for the
# differential test, the level generator and the benchmark. It ends by making a level and taking
# three steps in it (drive-minigrid.py --bench). Idempotent: a second run only does that.
#   packages/env-babyai/reference/setup.sh      (from any directory)
# Needs Python 3.9-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../../tooling/reference-venv.sh" babyai "$here/requirements.txt" "$here/drive-minigrid.py" --bench BabyAI-GoToLocal-v0 1 3 1
