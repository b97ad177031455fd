#!/usr/bin/env bash
# Creates or updates the Python environment that runs the reference ALFWorld engine (TextWorld's
# PDDL env, Fast Downward, ALFWorld's demangler) for the differential test and the benchmark.
# It ends by playing a reset and one step of TextWorld's test game (play.py --smoke). Idempotent: a
# second run only does that. The native code it compiles (Fast Downward, and jericho's frotz) builds
# with its own portable flags (-O3, no -march), so uv's cached wheels of it run on any x86-64 CPU.
#   packages/env-alfworld/reference/setup.sh      (from any directory)
# Needs Python 3.9-3.12 (3.13 breaks TextWorld's grammar evaluation) and, to compile Fast Downward,
# a C++ compiler, cmake and make. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REFERENCE_TOOLS="c++ cmake make" \
  REFERENCE_TOOLS_HINT="Fast Downward is compiled during install (apt-get install build-essential cmake)" \
  REFERENCE_NOTE="compiling Fast Downward takes a few minutes" \
  exec "$here/../../../tooling/reference-venv.sh" alfworld "$here/requirements.txt" "$here/play.py" --smoke
