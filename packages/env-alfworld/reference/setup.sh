#!/usr/bin/env bash
# Creates or updates the Python environment that runs the reference ALFWorld engine (TextWorld's
# PDDL env, Fast Downward, ALFWorld's demangler) for the differential test and the benchmark.
# Idempotent: does nothing when the environment already matches requirements.txt.
#   packages/env-alfworld/reference/setup.sh      (from any directory)
# Needs Python 3.9-3.12 (3.13 breaks TextWorld's grammar evaluation) and, to compile Fast Downward,
# a C++ compiler, cmake and make. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/.venv/alfworld-reference"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"

pick_python() {
  local candidate
  for candidate in ${PYTHON:-} python3.11 python3.12 python3.10 python3.9 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c 'import sys; sys.exit(0 if (3, 9) <= sys.version_info[:2] <= (3, 12) else 1)' 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]] &&
  "$venv/bin/python" "$here/play.py" --check >/dev/null 2>&1; then
  echo "alfworld reference: $venv is up to date"
  exit 0
fi

if ! python="$(pick_python)"; then
  echo "alfworld reference: no Python 3.9-3.12 found (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
for tool in c++ cmake make; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "alfworld reference: '$tool' is missing; Fast Downward is compiled during install (apt-get install build-essential cmake)" >&2
    exit 1
  fi
done

echo "alfworld reference: installing into $venv with $python (compiling Fast Downward takes a few minutes)"
mkdir -p "$root/.venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python" "$here/play.py" --check
echo "$wanted" >"$stamp"
