#!/bin/sh
# Builds the fuel floors (jsonline, readline) into the directory given as $1, deterministically,
# with the flags examples/build.sh uses for the committed example modules. The modules are not
# committed (each is over 1 MB): examples/fuel_test.go runs this script into a temporary directory.
# Without an argument (as CI runs every build.sh) it builds into a scratch directory and removes it,
# which checks that the sources still build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
	mkdir -p "$1"
	out=$(cd "$1" && pwd)
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
for name in jsonline readline; do
	(cd "$here/$name" && CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm GOFLAGS= \
		go build -trimpath -buildvcs=false -o "$out/$name.wasm" .)
done
