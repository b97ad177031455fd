#!/usr/bin/env bash
# Regenerates src/wire/tinker-public.generated.ts, the protobuf types of the Tinker wire (the
# forward_backward request body; forward, forward_backward and sample results), from the schema the
# official Python SDK ships: PyPI `tinker` 0.25.x, module tinker/proto/tinker_public_pb2.py. Its
# serialized FileDescriptor is written as a binary FileDescriptorSet, which `buf generate` reads as
# an image and hands to protoc-gen-es (@bufbuild/protoc-gen-es, TypeScript output).
#   packages/tinker/scripts/generate-proto.sh      (from any directory)
# Needs a Python with `tinker` installed: .venv/tinker-reference (packages/tinker/reference/setup.sh)
# by default, or PYTHON=/path/to/python.
set -euo pipefail

package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$package/../.." && pwd)"
python="${PYTHON:-$root/.venv/tinker-reference/bin/python}"
image="$(mktemp --suffix=.binpb)"
trap 'rm -f "$image"' EXIT

"$python" - "$image" <<'PY'
import importlib.util
import sys
from importlib.metadata import version
from pathlib import Path

from google.protobuf import descriptor_pb2

# Loaded as a file: importing the `tinker` package would pull in the whole SDK.
package = importlib.util.find_spec("tinker")
schema = Path(package.origin).parent / "proto" / "tinker_public_pb2.py"
spec = importlib.util.spec_from_file_location("tinker_public_pb2", schema)
tinker_public_pb2 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tinker_public_pb2)

descriptors = descriptor_pb2.FileDescriptorSet()
descriptors.file.add().ParseFromString(tinker_public_pb2.DESCRIPTOR.serialized_pb)
with open(sys.argv[1], "wb") as out:
    out.write(descriptors.SerializeToString())
print(f"tinker {version('tinker')}: {tinker_public_pb2.DESCRIPTOR.name}", file=sys.stderr)
PY

out="$(mktemp -d)"
trap 'rm -rf "$image" "$out"' EXIT
cd "$package"
PATH="$package/node_modules/.bin:$PATH" buf generate "$image" --template scripts/buf.gen.yaml --output "$out"
generated=src/wire/tinker-public.generated.ts
sdk_version="$("$python" -c "from importlib.metadata import version; print(version('tinker'))")"
{
  echo "// Generated from PyPI tinker ${sdk_version}, tinker/proto/tinker_public_pb2.py, by"
  echo "// packages/tinker/scripts/generate-proto.sh (buf generate + protoc-gen-es). Do not edit."
  cat "$out/tinker_public_pb.ts"
} >"$generated"
echo "wrote packages/tinker/$generated"
