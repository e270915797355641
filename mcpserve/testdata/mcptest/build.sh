#!/usr/bin/env bash
# Rebuilds module.wasm from main.c with Debian's clang and wasi-libc (see toolchains.md; installed
# with apt-get when missing, which needs root). The module is committed; CI runs this and fails on
# any difference.
set -euo pipefail
cd "$(dirname "$0")"
if ! echo 'int main(void){return 0;}' | clang --target=wasm32-wasi -x c - -o /dev/null 2>/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends \
    clang lld wasi-libc libclang-rt-14-dev-wasm32 >/dev/null
fi
clang --target=wasm32-wasi -O2 -Wall -Werror -Wl,--strip-all -o module.wasm main.c
