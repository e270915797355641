#!/usr/bin/env bash
# Rebuilds the component fixtures from their text with `jco parse` (wasm-tools' text parser),
# deterministically. jco comes from $KOBAKO_NPM (default ~/.cache/kobako-toolchain/npm) or is
# installed into a temporary directory with npm, as component/testdata/build.sh does.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm_dir=${KOBAKO_NPM:-$HOME/.cache/kobako-toolchain/npm}
if [ ! -x "$npm_dir/node_modules/.bin/jco" ]; then
  npm_dir=$tmp/npm
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm init -y >/dev/null && npm i --silent --no-audit --no-fund @bytecodealliance/jco@1.35.0 >/dev/null)
fi
for f in *.wat; do
  "$npm_dir/node_modules/.bin/jco" parse "$f" -o "${f%.wat}.wasm"
done
