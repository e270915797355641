#!/usr/bin/env bash
# Rebuilds the embedded example package's module.
set -euo pipefail
cd "$(dirname "$0")"
wat2wasm --enable-all -o module.wasm module.wat
