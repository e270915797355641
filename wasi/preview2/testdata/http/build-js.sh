#!/usr/bin/env bash
# Rebuilds fetch-tool.wasm from fetch-tool.js with componentize-js 0.23.0 (the default build,
# which imports WASI 0.2 and wasi:http), world zeroclaw:plugin/tool-plugin@0.1.0 from wit/.
# NOT named build.sh on purpose: componentize-js output differs from run to run (wizer
# snapshots the JavaScript engine), so CI cannot rebuild it and compare; fetch-tool.wasm is
# committed as built. componentize-js comes from $KOBAKO_NPM (default
# ~/.cache/kobako-toolchain/npm) or is installed into a temporary directory with npm.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm_dir=${KOBAKO_NPM:-$HOME/.cache/kobako-toolchain/npm}
if [ ! -x "$npm_dir/node_modules/.bin/componentize-js" ]; then
  npm_dir=$tmp/npm
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm init -y >/dev/null && npm i --silent --no-audit --no-fund @bytecodealliance/componentize-js@0.23.0 >/dev/null)
fi
"$npm_dir/node_modules/.bin/componentize-js" fetch-tool.js --wit wit -n tool-plugin -o fetch-tool.wasm
chmod 0644 fetch-tool.wasm
