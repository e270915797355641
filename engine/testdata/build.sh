#!/usr/bin/env bash
# Rebuilds every .wasm fixture here from its .wat source with Debian's wabt (wat2wasm 1.0.32).
set -euo pipefail
cd "$(dirname "$0")"
for f in *.wat; do
  wat2wasm --enable-all "$f" -o "${f%.wat}.wasm"
done
