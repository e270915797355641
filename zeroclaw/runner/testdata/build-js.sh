#!/usr/bin/env bash
# Rebuilds configecho.wasm from configecho/plugin.js with componentize-js 0.23.0 against the
# tool-plugin world of ../../wit/v0 (the @unstable feature gates stripped into a temporary copy:
# componentize-js has no option to enable a WIT feature, and gated items are invisible without one).
#   componentize-js plugin.js --wit WIT -n tool-plugin -d http fetch-event
# `-d http fetch-event` keeps wasi:http out: the tool is not granted http_client, and a component
# importing wasi:http without the grant is refused. It still imports WASI 0.2 cli/io/clocks/random.
# NOT named build.sh on purpose: componentize-js output differs from run to run (wizer snapshots
# the initialised JavaScript engine), so the CI cannot rebuild it and compare; configecho.wasm is
# committed as built. About 25 s and 0.8 GB of memory.
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
./ungate.sh ../wit/v0 "$tmp/wit"
"$npm_dir/node_modules/.bin/componentize-js" configecho/plugin.js --wit "$tmp/wit" -n tool-plugin \
  -d http fetch-event -o configecho.wasm
chmod 0644 configecho.wasm
