# Sourced by the reference setups: pick_python MIN MAX CANDIDATE... prints the path of the first
# interpreter, $PYTHON first, whose version is from MIN to MAX (e.g. 3.10 3.12), and fails when none
# is. Candidates may be names on PATH or paths.
pick_python() {
  local min="${1//./,}" max="${2//./,}" candidate
  shift 2
  for candidate in ${PYTHON:-} "$@"; do
    if [[ -n "$candidate" ]] && command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c "import sys; sys.exit(0 if ($min) <= sys.version_info[:2] <= ($max) else 1)" 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}
