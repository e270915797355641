#!/bin/sh
# Regenerates the test fixtures: allops.wat from gen_allops.py, then every .wasm from its .wat.
# Needs python3 and wabt's wat2wasm (Debian wabt 1.0.32).
set -eu
cd "$(dirname "$0")"
python3 gen_allops.py
for f in *.wat; do
	case "$f" in
	globals.wat | hook.wat) wat2wasm --debug-names "$f" -o "${f%.wat}.wasm" ;;
	*) wat2wasm "$f" -o "${f%.wat}.wasm" ;;
	esac
done
wat2wasm --debug-names --enable-threads features/threads.wat -o features/threads.wasm
wat2wasm --debug-names --enable-tail-call features/tailcall.wat -o features/tailcall.wasm
wat2wasm --debug-names --enable-exceptions features/exceptions.wat -o features/exceptions.wasm
wat2wasm --debug-names --enable-memory64 features/memory64.wat -o features/memory64.wasm
wat2wasm --debug-names --enable-multi-memory features/multimemory.wat -o features/multimemory.wasm
wat2wasm --debug-names --enable-extended-const features/extconst.wat -o features/extconst.wasm
wat2wasm --debug-names --enable-relaxed-simd features/relaxedsimd.wat -o features/relaxedsimd.wasm
