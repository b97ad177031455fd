#!/usr/bin/env bash
# Creates or updates the Python environment of the real OpenEnv server that env-remote's engine tests
# play against: openenv-core's server library serving games made by TextWorld's tw-make
# (textworld_server.py), both pinned in requirements.txt, in .venv/env-remote-reference; it ends by
# making one game and playing one step of it. Idempotent.
#   packages/env-remote/reference/setup.sh      (from any directory)
# Needs Python 3.10-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../../tooling/reference-venv.sh" env-remote "$here/requirements.txt" \
  "$here/textworld_server.py" smoke
