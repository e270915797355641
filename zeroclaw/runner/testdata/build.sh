#!/usr/bin/env bash
# Rebuilds the small runtime fixtures beside their sources, deterministically (the CI reruns every
# build.sh and fails if a committed .wasm changes). WIT worlds come from ../wit (v0 and seed) with
# the feature gates stripped by ungate.sh into a temporary directory.
#   gotool/                   -> gotool.wasm: Go (GOOS=wasip1, c-shared), the adapter patch and
#                                componentize.mjs of component/testdata/real (preview 1 reactor
#                                adapter), world tool-plugin
#   c/channel.c               -> channel-v0.wasm (world v0 channel-plugin) and, with -DSEED,
#                                channel-seed.wasm (world seed channel-plugin): clang --target=wasm32
#                                -nostdlib, wit-component without an adapter
#   c/memory.c                -> memory.wasm (world memory-plugin), the same way
#   wat/misbehave.core.wat    -> misbehave.wasm (world tool-plugin), the same way
#   wat/httptool.core.wat     -> httptool.wasm (world http-tool-plugin of wat/httptool.wit: tool-plugin
#                                plus a hand-declared subset of wasi:http/types@0.2.0)
#   wat/blocker.core.wat      -> blocker.wasm (world blocker-plugin of wat/blocker.wit: tool-plugin
#                                plus the WASI 0.2.0 clock and poll subset, declared by hand)
# The JavaScript config-echo tool is built by build-js.sh instead (not deterministic).
# Needs go, clang (wasm32), wabt and node; jco 1.35.0 comes from $KOBAKO_NPM (default
# ~/.cache/kobako-toolchain/npm) or is installed into a temporary directory with npm.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
real=$here/../../../component/testdata/real
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

npm_dir=${KOBAKO_NPM:-$HOME/.cache/kobako-toolchain/npm}
if [ ! -x "$npm_dir/node_modules/.bin/jco" ]; then
  npm_dir=$tmp/npm
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm init -y >/dev/null && npm i --silent --no-audit --no-fund @bytecodealliance/jco@1.35.0 >/dev/null)
fi
ln -s "$npm_dir/node_modules" "$tmp/node_modules"
cp "$real/componentize.mjs" "$tmp/componentize-adapter.mjs"
cp "$here/../../../component/testdata/componentize.mjs" "$tmp/"

./ungate.sh ../wit/v0 "$tmp/v0"
./ungate.sh ../wit/seed "$tmp/seed"

# Go tool through the preview 1 reactor adapter.
GOOS=wasip1 GOARCH=wasm go build -trimpath -buildvcs=false -buildmode=c-shared -o "$tmp/gotool.core.wasm" ./gotool
node "$real/patch.mjs" "$tmp/gotool.core.wasm" "$tmp/gotool.patched.wasm"
(cd "$tmp" && node componentize-adapter.mjs "$tmp/gotool.patched.wasm" "$tmp/v0.wit" tool-plugin "$here/gotool.wasm" reactor)

# Freestanding C and core WAT, componentized without an adapter (they import no WASI).
cc() { clang --target=wasm32 -O2 -nostdlib -ffreestanding -Wl,--no-entry -Wl,--strip-all "$@"; }
cc -o "$tmp/channel-v0.core.wasm" c/channel.c
cc -DSEED -o "$tmp/channel-seed.core.wasm" c/channel.c
cc -o "$tmp/memory.core.wasm" c/memory.c
wat2wasm wat/misbehave.core.wat -o "$tmp/misbehave.core.wasm"
wat2wasm wat/blocker.core.wat -o "$tmp/blocker.core.wasm"
cat "$tmp/v0.wit" wat/blocker.wit >"$tmp/blocker.wit"
wat2wasm wat/httptool.core.wat -o "$tmp/httptool.core.wasm"
cat "$tmp/v0.wit" wat/httptool.wit >"$tmp/httptool.wit"
(cd "$tmp" &&
  node componentize.mjs channel-v0.core.wasm v0.wit channel-plugin "$here/channel-v0.wasm" &&
  node componentize.mjs channel-seed.core.wasm seed.wit channel-plugin "$here/channel-seed.wasm" &&
  node componentize.mjs memory.core.wasm v0.wit memory-plugin "$here/memory.wasm" &&
  node componentize.mjs misbehave.core.wasm v0.wit tool-plugin "$here/misbehave.wasm" &&
  node componentize.mjs blocker.core.wasm blocker.wit blocker-plugin "$here/blocker.wasm" &&
  node componentize.mjs httptool.core.wasm httptool.wit http-tool-plugin "$here/httptool.wasm")

chmod 0644 ./*.wasm
