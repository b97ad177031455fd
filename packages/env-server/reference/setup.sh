#!/usr/bin/env bash
# Creates or updates the Python environment with the real OpenEnv client (PyPI openenv-core, pinned
# in requirements.txt), which the engine tests drive our server with (openenv_client.py). The
# AgentGym call pattern (agentgym_pattern.py) needs only the standard library. It ends by playing a
# reset and a step through that client against openenv-core's own server (smoke.py). Idempotent.
#   packages/env-server/reference/setup.sh      (from any directory)
# Needs Python 3.10-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../../tooling/reference-venv.sh" env-server "$here/requirements.txt" \
  "$here/smoke.py"
