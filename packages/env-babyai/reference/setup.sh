#!/usr/bin/env bash
# Creates or updates the Python environment that runs the reference BabyAI engine (Minigrid and
# Gymnasium, pinned PyPI releases in requirements.txt, driven by our drive-minigrid.py) for the
# differential test, the level generator and the benchmark. Idempotent: does nothing when the
# environment already matches requirements.txt.
#   packages/env-babyai/reference/setup.sh      (from any directory)
# Needs Python 3.9-3.12 and PyPI. PYTHON=/path/to/python picks the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/.venv/babyai-reference"
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
  "$venv/bin/python" "$here/drive-minigrid.py" --versions >/dev/null 2>&1; then
  echo "babyai reference: $venv is up to date"
  exit 0
fi

if ! python="$(pick_python)"; then
  echo "babyai reference: no Python 3.9-3.12 found (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi

echo "babyai reference: installing into $venv with $python"
mkdir -p "$root/.venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python" "$here/drive-minigrid.py" --versions
echo "$wanted" >"$stamp"
