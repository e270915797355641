#!/bin/bash
# Cold and warm `kobako plugin call` on the 12 MB componentize-js tool (zeroclaw/runner/testdata/
# configecho.wasm), in interleaved rounds of three runs: cold (an empty --cache-dir), warm (the
# directory the cold run just filled) and --no-cache. Prints one line per run:
#   MODE WALL_S USER_S SYS_S MAXRSS_KB
# Usage: bench/cli_cache.sh [ROUNDS]   (K=path/to/kobako, default: built from this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-12}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
K=${K:-$tmp/kobako}
[ -x "$K" ] || go build -o "$K" ./cmd/kobako
mkdir -p "$tmp/plugins/t"
cp zeroclaw/runner/testdata/configecho.wasm "$tmp/plugins/t/plugin.wasm"
printf 'name = "t"\nversion = "0.1.0"\nwasm_path = "plugin.wasm"\ncapabilities = ["tool"]\n' >"$tmp/plugins/t/manifest.toml"
one() { # MODE FLAGS...
  local mode=$1; shift
  HOME=$tmp /usr/bin/time -f "$mode %e %U %S %M" -o "$tmp/time" \
    "$K" plugin call --plugins-dir "$tmp/plugins" "$@" t '{"text":"hello"}' >/dev/null
  cat "$tmp/time"
}
for _ in $(seq "$n"); do
  rm -rf "$tmp/cache"
  one cold --cache-dir "$tmp/cache"
  one warm --cache-dir "$tmp/cache"
  one nocache --no-cache
done
