#!/usr/bin/env bash
# Generates the Python code of the API from protos/ (the one command behind `make protos`).
#
#   scripts/gen_protos.sh [OUT_DIR]    # default: python/ (the griot package's source root)
#
# Writes OUT_DIR/griot/v1/{common,rules,analysis}_pb2.py (messages), *_pb2_grpc.py (stubs and
# servicers) and their .pyi stubs (mypy-protobuf), importable as `griot.v1.rules_pb2` etc. The
# output is committed; `make protos-check` regenerates into a temporary folder and diffs.
# Needs grpcio-tools and mypy-protobuf (the `test` extra).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/python}"
python="${PYTHON:-python3}"
pkg="$out/griot/v1"

mkdir -p "$pkg"
rm -f "$pkg"/*_pb2.py "$pkg"/*_pb2.pyi "$pkg"/*_pb2_grpc.py "$pkg"/*_pb2_grpc.pyi

# grpc_tools ships the well-known types (google/protobuf/duration.proto).
wkt="$("$python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"

cd "$root/protos"
"$python" -m grpc_tools.protoc \
  -I . -I "$wkt" \
  --python_out="$out" \
  --grpc_python_out="$out" \
  --mypy_out="$out" \
  --mypy_grpc_out="$out" \
  griot/v1/*.proto

cat > "$pkg/__init__.py" <<'PY'
"""Generated code of the ``griot.v1`` API (protos/griot/v1). Do not edit: run ``make protos``."""
PY
