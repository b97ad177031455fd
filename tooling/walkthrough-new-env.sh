#!/usr/bin/env bash
# CONTRIBUTING's "Add an environment", walked through as written: the section's shell block, line by
# line, in a scratch clone of this repo's HEAD (committed work only), then a check of what the lines
# made (the env registered in the app, a trained run). CI runs it; so can anyone: it changes nothing here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pilotrl-walkthrough.XXXXXX")
trap 'rm -rf "${scratch}"' EXIT

block=$(awk '
  /^## Add an environment/ { inside = 1; next }
  /^## / { inside = 0 }
  inside && /^```sh$/ { code = 1; next }
  inside && code && /^```$/ { exit }
  inside && code { print }
' "${root}/CONTRIBUTING.md")
if [ -z "${block}" ]; then
  echo "walkthrough: CONTRIBUTING.md has no sh block under \"## Add an environment\"" >&2
  exit 1
fi

git clone -q "${root}" "${scratch}/repo"
cd "${scratch}/repo"
echo "==> pnpm install --frozen-lockfile (in ${scratch}/repo)"
pnpm install --frozen-lockfile --reporter=silent
while IFS= read -r line; do
  [ -n "${line}" ] || continue
  echo "==> ${line}"
  # Each line as a newcomer types it; stdin is empty, so `play` ends at once.
  bash -euo pipefail -c "${line}" </dev/null
done <<<"${block}"

fail() {
  echo "walkthrough: $*" >&2
  exit 1
}
grep -q '"@pilotrl/env-guess": "workspace:^"' apps/pilotrl/package.json ||
  fail "pnpm new:env guess did not add the package to apps/pilotrl/package.json"
grep -q "from '@pilotrl/env-guess'" apps/pilotrl/src/plugins/builtin.ts ||
  fail "pnpm new:env guess did not register the plug-in in apps/pilotrl/src/plugins/builtin.ts"
[ -s runs/guess-tiny/metrics.jsonl ] || fail "the tiny curriculum left no metrics in runs/guess-tiny"
[ -d runs/guess-tiny/checkpoints ] || fail "the tiny curriculum left no checkpoint in runs/guess-tiny"
echo "walkthrough: CONTRIBUTING's \"Add an environment\" works as written"
