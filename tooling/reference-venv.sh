#!/usr/bin/env bash
# Creates or updates the Python environment of a reference engine, .venv/<name>-reference, from a
# requirements.txt of pinned PyPI releases, then proves it works with one real call (the smoke
# check). Called by packages/*/reference/setup.sh:
#   tooling/reference-venv.sh <name> <requirements.txt> <smoke command...>
# where the smoke command runs with the environment's python as its first word, every time (an
# environment that is already up to date is only checked). Installs with uv (PyPI's `uv`, pinned
# below, kept in .venv/uv): it downloads in parallel and links packages from its cache, so two
# environments with the same torch share one copy on disk.
# Needs Python 3.9-3.12; PYTHON=/path/to/python picks the interpreter. When it installs, it first
# checks that the tools named in REFERENCE_TOOLS are there (REFERENCE_TOOLS_HINT says how to get
# them) and prints REFERENCE_NOTE. A setup that compiles native code for this machine passes:
#   REFERENCE_BUILD_KEY    what the build depends on besides the requirements (its flags, the CPU
#                          level it targets): a change rebuilds the environment;
#   REFERENCE_FIND_LINKS   a directory of wheels it built itself, preferred over PyPI's;
#   REFERENCE_ONLY_BINARY  packages that must come from those wheels, never be compiled by uv
#                          (uv's own cache of built wheels does not know the build's flags).
set -euo pipefail

name="$1"
requirements="$2"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv/$name-reference"
stamp="$venv/.requirements.sha256"
UV_VERSION=0.13.9

# shellcheck source=pick-python.sh
source "$root/tooling/pick-python.sh"

# The smoke check: its last line of output says what it did; on failure its last lines (its own
# stderr included) say why.
smoke() {
  local out errors status=0
  errors="$(mktemp)"
  out="$("$venv/bin/python" "$@" 2>"$errors")" || status=$?
  if [[ "$status" -eq 0 ]]; then
    echo "$name reference: smoke check passed${out:+ ($(tail -n 1 <<<"$out"))}"
  else
    { echo "$out"; cat "$errors"; } | tail -n 30 >&2
  fi
  rm -f "$errors"
  return "$status"
}

wanted="$({ cat "$requirements"; printf '%s\n' "${REFERENCE_BUILD_KEY:-}"; } | sha256sum | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  if smoke "$@"; then
    exit 0
  fi
  echo "$name reference: $venv is up to date but its smoke check failed; installing it again"
fi

if ! python="$(pick_python 3.9 3.12 python3.11 python3.12 python3.10 python3.9 python3)"; then
  echo "$name reference: no Python 3.9-3.12 found (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
for tool in ${REFERENCE_TOOLS:-}; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$name reference: '$tool' is missing; ${REFERENCE_TOOLS_HINT:-install it}" >&2
    exit 1
  fi
done

# uv itself, once for every reference (a lock, as CI sets several up at the same time).
uv="$root/.venv/uv/bin/uv"
mkdir -p "$root/.venv"
(
  flock 9
  if ! [[ -x "$uv" && "$("$uv" --version 2>/dev/null)" == "uv $UV_VERSION"* ]]; then
    rm -rf "$root/.venv/uv"
    "$python" -m venv "$root/.venv/uv"
    "$root/.venv/uv/bin/python" -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
  fi
) 9>"$root/.venv/.uv.lock"

echo "$name reference: installing into $venv with $python${REFERENCE_NOTE:+ ($REFERENCE_NOTE)}"
rm -rf "$venv"
"$uv" venv --quiet --python "$python" "$venv"
install=(pip install --quiet --python "$venv/bin/python" -r "$requirements")
[[ -n "${REFERENCE_FIND_LINKS:-}" ]] && install+=(--find-links "$REFERENCE_FIND_LINKS")
for package in ${REFERENCE_ONLY_BINARY:-}; do install+=(--only-binary "$package"); done
"$uv" "${install[@]}"
if ! smoke "$@"; then
  echo "$name reference: installed, but its smoke check failed: the environment in $venv does not work on this machine (its output is above)" >&2
  exit 1
fi
echo "$wanted" >"$stamp"
