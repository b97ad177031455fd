#!/usr/bin/env bash
# Creates or updates the Python environment of the speed bench's reference side (bench/load.ts):
# ALFWorld's reference engine (packages/env-alfworld/reference/requirements.txt: TextWorld's PDDL env,
# Fast Downward, ALFWorld) and PyPI's openenv-core (requirements.txt here), in one venv at
# .venv/env-server-bench-reference, for alfworld_openenv_server.py. The two pinned files are merged
# (they pin no package at two versions; a conflict stops the setup). Idempotent: the stamp is the
# hash of the merged list, so editing either file reinstalls.
#   packages/env-server/reference/bench-setup.sh      (from any directory)
# Needs Python 3.10-3.12, PyPI, and to compile Fast Downward (when no wheel of it is at hand) a C++
# compiler, cmake and make. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
alfworld="$here/../../env-alfworld/reference/requirements.txt"
merged="$(mktemp)"
trap 'rm -f "$merged"' EXIT

# One pin per package (names compared as pip does: case-insensitive, '-' = '_').
cat "$alfworld" "$here/requirements.txt" | grep -v '^\s*#' | grep -v '^\s*$' | tr 'A-Z_' 'a-z-' | sort -u >"$merged"
conflicts="$(sed 's/==.*//' "$merged" | uniq -d)"
if [[ -n "$conflicts" ]]; then
  echo "env-server bench reference: the two requirement files pin these at different versions: $conflicts" >&2
  exit 1
fi

REFERENCE_TOOLS="c++ cmake make" \
  REFERENCE_TOOLS_HINT="Fast Downward is compiled during install (apt-get install build-essential cmake)" \
  REFERENCE_NOTE="ALFWorld's reference engine and openenv-core; compiling Fast Downward takes a few minutes" \
  "$here/../../../tooling/reference-venv.sh" env-server-bench "$merged" \
  "$here/alfworld_openenv_server.py" --check
