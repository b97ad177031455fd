#!/usr/bin/env bash
# Puts a Node of the given major line in .tools/node-<major> from npm's `node` package (a registry
# package that carries the official Linux binary), once; prints its version, or with --bin-dir the
# directory to put first on PATH to run a command on it:
#   bash .ci/node.sh 24              # installs when needed, prints "node 24: v24.x.y (.tools/node-24)"
#   PATH="$(bash .ci/node.sh 26 --bin-dir):$PATH" pnpm test
set -euo pipefail
cd "$(dirname "$0")/.."

major="$1"
prefix=".tools/node-${major}"
bin_dir="$(pwd)/${prefix}/node_modules/node/bin"
current() { "${bin_dir}/node" --version 2>/dev/null || true; }
if [[ "$(current)" != "v${major}."* ]]; then
  rm -rf "${prefix}"
  mkdir -p "${prefix}"
  npm install --prefix "${prefix}" --no-save --no-audit --no-fund --loglevel=error "node@${major}" >&2
  if [[ "$(current)" != "v${major}."* ]]; then
    echo "node ${major}: npm's node@${major} did not leave a working ${bin_dir}/node" >&2
    exit 1
  fi
fi
if [[ "${2:-}" == "--bin-dir" ]]; then
  echo "${bin_dir}"
else
  echo "node ${major}: $(current) (${prefix})"
fi
