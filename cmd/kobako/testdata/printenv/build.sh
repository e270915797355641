#!/usr/bin/env bash
# Rebuilds printenv.wasm from its text.
set -euo pipefail
cd "$(dirname "$0")"
wat2wasm -o printenv.wasm printenv.wat
