#!/bin/sh
# Rebuilds module.wasm in every example package from its main.go, deterministically, so that the
# committed modules match the sources. With --check it builds into a scratch directory instead and
# fails (exit 1) when any committed module differs, which is what CI runs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
check=0
if [ "${1:-}" = "--check" ]; then check=1; fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for dir in "$here"/*/; do
	[ -f "$dir/main.go" ] || continue
	name=$(basename "$dir")
	out="$dir/module.wasm"
	if [ "$check" = 1 ]; then out="$scratch/$name.wasm"; fi
	(cd "$dir" && CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm GOFLAGS= \
		go build -trimpath -buildvcs=false -o "$out" .)
	if [ "$check" = 1 ]; then
		if ! cmp -s "$out" "$dir/module.wasm"; then
			echo "examples/$name/module.wasm is out of date; run subako/sdk/examples/build.sh" >&2
			status=1
		fi
	else
		echo "built examples/$name/module.wasm ($(wc -c <"$out") bytes)"
	fi
done
exit $status
