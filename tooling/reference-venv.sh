#!/usr/bin/env bash
# Creates or updates the Python environment of a reference engine, .venv/<name>-reference, from a
# requirements.txt of pinned PyPI releases. Idempotent: does nothing when the environment already
# matches the requirements and its check command passes. Called by packages/env-*/reference/setup.sh:
#   tooling/reference-venv.sh <name> <requirements.txt> <check command...>
# where the check command runs with the environment's python as its first word. Needs Python
# 3.9-3.12; PYTHON=/path/to/python picks the interpreter. When it installs, it first checks that the
# tools named in REFERENCE_TOOLS are there (REFERENCE_TOOLS_HINT says how to get them) and prints
# REFERENCE_NOTE.
set -euo pipefail

name="$1"
requirements="$2"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv/$name-reference"
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
  "$venv/bin/python" "$@" >/dev/null 2>&1; then
  echo "$name reference: $venv is up to date"
  exit 0
fi

if ! python="$(pick_python)"; then
  echo "$name reference: no Python 3.9-3.12 found (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
for tool in ${REFERENCE_TOOLS:-}; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$name reference: '$tool' is missing; ${REFERENCE_TOOLS_HINT:-install it}" >&2
    exit 1
  fi
done

echo "$name reference: installing into $venv with $python${REFERENCE_NOTE:+ ($REFERENCE_NOTE)}"
mkdir -p "$root/.venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python" "$@"
echo "$wanted" >"$stamp"
