#!/usr/bin/env bash
# ungate.sh SRC DST: copies the WIT package in SRC to DST without its `@unstable(feature = …)`
# gates, as the directory DST/ and as one file DST.wit (the package's files joined under one
# package line: jco's componentEmbed takes a single WIT source). The toolchains that build the
# fixtures (wit-component through jco, componentize-js) cannot enable a WIT feature and drop gated
# items; the contract is otherwise unchanged.
set -euo pipefail
mkdir -p "$2"
for f in "$1"/*.wit; do
  sed -E '/^[[:space:]]*@unstable\(feature = [a-z0-9-]+\)[[:space:]]*$/d' "$f" >"$2/$(basename "$f")"
done
if grep -q '@unstable' "$2"/*.wit; then echo "ungate.sh: a gate was not stripped" >&2; exit 1; fi
{
  grep -h -m1 '^package ' "$2"/types.wit
  for f in "$2"/*.wit; do grep -v '^package ' "$f"; done
} >"$2.wit"
