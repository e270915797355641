#!/usr/bin/env bash
# Rebuilds js.wasm and js-full.wasm from js/plugin.js with componentize-js 0.23.0 (StarlingMonkey,
# snapshotted by wizer). js.wasm has every WASI feature it can drop disabled, so it imports nothing:
#   componentize-js js/plugin.js --wit wit/world.wit -n tool-plugin -d stdio random clocks http fetch-event
# js-full.wasm is the same source built without -d: it imports WASI 0.2 and wasi:http 0.2.10.
# NOT named build.sh on purpose: the output differs from run to run (two builds of the same source
# differ in about 2 million bytes, and in size), so the CI cannot rebuild it and compare. Takes
# about 15 s and 0.8 GB of memory per build. Afterwards regenerate js.expected.txt (see README.md).
# componentize-js comes from $KOBAKO_NPM (default ~/.cache/kobako-toolchain/npm) or is installed
# into a temporary directory with npm.
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
"$npm_dir/node_modules/.bin/componentize-js" js/plugin.js --wit wit/world.wit -n tool-plugin \
  -d stdio random clocks http fetch-event -o js.wasm
"$npm_dir/node_modules/.bin/componentize-js" js/plugin.js --wit wit/world.wit -n tool-plugin \
  -o js-full.wasm
chmod 0644 js.wasm js-full.wasm
