#!/usr/bin/env bash
# Rebuilds the component fixtures beside their sources, deterministically (the CI rebuilds them and
# fails if a committed .wasm changes). Real toolchains only:
#   *.wat, refuse/*.wat, invalid/*.wat -> .wasm with `jco parse` (wasm-tools 0.259 text parser,
#                            jco 1.35.0); refuse/ holds out-of-scope features, invalid/ components
#                            the reference validator rejects too
#   fixture.core.wat + wit/fixture.wit -> fixture.wasm with wit-component (jco's componentEmbed +
#                            componentNew; see componentize.mjs)
#   hello.c               -> hello.wasm: clang --target=wasm32-wasi with wasi-libc, then
#                            `jco new --wasi-command` (wasi_snapshot_preview1 command adapter)
# jco comes from $KOBAKO_NPM (default ~/.cache/kobako-toolchain/npm, where shared/toolchain/setup.sh
# installs it) or is installed into a temporary directory with npm. clang and wasi-libc come from
# Debian (apt-get install clang lld wasi-libc if missing; needs root).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

npm_dir=${KOBAKO_NPM:-$HOME/.cache/kobako-toolchain/npm}
if [ ! -x "$npm_dir/node_modules/.bin/jco" ]; then
  npm_dir=$tmp/npm
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm init -y >/dev/null && npm i --silent --no-audit --no-fund @bytecodealliance/jco@1.35.0 >/dev/null)
fi
jco=$npm_dir/node_modules/.bin/jco

if ! echo 'int main(void){return 0;}' | clang --target=wasm32-wasi -x c - -o "$tmp/probe.wasm" 2>/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends \
    clang lld wasi-libc libclang-rt-14-dev-wasm32 >/dev/null
fi

# The node helpers must sit beside node_modules to import jco.
ln -s "$npm_dir/node_modules" "$tmp/node_modules"
cp componentize.mjs parse.mjs "$tmp/"

# Component text format.
wats=()
for f in *.wat refuse/*.wat invalid/*.wat; do
  case "$f" in *.core.wat) continue ;; esac
  wats+=("$here/$f")
done
cp fixture.core.wat "$tmp/"
(cd "$tmp" && node parse.mjs "${wats[@]}" "$tmp/fixture.core.wat")

# wit-component.
(cd "$tmp" && node componentize.mjs "$tmp/fixture.core.wasm" "$here/wit/fixture.wit" fixture "$here/fixture.wasm")

# C with wasi-libc, through the preview1 command adapter.
clang --target=wasm32-wasi -O2 -Wl,--strip-all -o "$tmp/hello.core.wasm" hello.c
"$jco" new "$tmp/hello.core.wasm" --wasi-command -o hello.wasm >/dev/null

chmod 0644 ./*.wasm refuse/*.wasm invalid/*.wasm

# Runtime fixtures (runtime/, used by component/runtime_*_test.go): components whose core modules
# really compute, in the component text format, and the freestanding C plugin componentized by
# wit-component without an adapter.
(cd "$tmp" && node parse.mjs "$here"/runtime/*.wat)
clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Wl,--strip-all -o "$tmp/plugin.core.wasm" runtime/plugin.c
(cd "$tmp" && node componentize.mjs "$tmp/plugin.core.wasm" "$here/runtime/wit/plugin.wit" tool-plugin "$here/runtime/plugin.wasm")
chmod 0644 runtime/*.wasm
