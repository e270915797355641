#!/bin/bash -eu
# Builds every native Go fuzz target of kobako as a libFuzzer binary for ClusterFuzzLite and
# OSS-Fuzz (compile_native_go_fuzzer, from the base-builder-go image). fuzz/clusterfuzzlite_test.go
# fails when a Fuzz function of the module is missing here, so keep one line per target.
#
# compile_native_go_fuzzer rewrites the test files of each package it builds; the packages need
# the go-118-fuzz-build testing shim in their module graph, which the register file pulls in.
set -eu
cd "$SRC/kobako"
for pkg in \
  ./abi \
  ./fuzz \
  ./internal/leb128 \
  ./mcpserve \
  ./subako \
  ./subako/sdk \
  ./wasi/preview2; do
  name=$(go list -f "{{.Name}}" "$pkg")
  printf "package %s\nimport _ \"github.com/AdamKorcz/go-118-fuzz-build/testing\"\n" "$name" > "$pkg/register_oss_fuzz.go"
done
go mod tidy

compile_native_go_fuzzer github.com/kobako/kobako/abi FuzzTypedDirect fuzz_typed_direct
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzCanonicalize fuzz_canonicalize
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzConfigFile fuzz_config_file
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzDecode fuzz_decode
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzDecodeComponent fuzz_decode_component
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzEgressAddr fuzz_egress_addr
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzEgressURL fuzz_egress_url
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzExtractZip fuzz_extract_zip
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzInjectConfig fuzz_inject_config
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzInstantiateComponent fuzz_instantiate_component
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzLiftFlat fuzz_lift_flat
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzLiftMemory fuzz_lift_memory
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzMCPMessage fuzz_mcpmessage
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzMeteredDifferential fuzz_metered_differential
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzOCIManifest fuzz_oci_manifest
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzManifestParse fuzz_manifest_parse
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzPreparedCacheFile fuzz_prepared_cache_file
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzPreview1 fuzz_preview1
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzRegistryIndex fuzz_registry_index
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzSubakoLoadZip fuzz_subako_load_zip
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzTypedAgreesWithDynamic fuzz_typed_agrees_with_dynamic
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzWAVE fuzz_wave
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzWAVECall fuzz_wavecall
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzWITPrinter fuzz_witprinter
compile_native_go_fuzzer github.com/kobako/kobako/fuzz FuzzWasmcheckExports fuzz_wasmcheck_exports
compile_native_go_fuzzer github.com/kobako/kobako/internal/leb128 FuzzLEB128 fuzz_leb128
compile_native_go_fuzzer github.com/kobako/kobako/mcpserve FuzzToolName fuzz_tool_name
compile_native_go_fuzzer github.com/kobako/kobako/subako FuzzHandleAnswerOneDecode fuzz_handle_answer_one_decode
compile_native_go_fuzzer github.com/kobako/kobako/subako FuzzSubakoHTTPRequest fuzz_subako_httprequest
compile_native_go_fuzzer github.com/kobako/kobako/subako FuzzSubakoMessage fuzz_subako_message
compile_native_go_fuzzer github.com/kobako/kobako/subako FuzzSubakoZip fuzz_subako_zip
compile_native_go_fuzzer github.com/kobako/kobako/subako/sdk FuzzDecodeAnswer fuzz_decode_answer
compile_native_go_fuzzer github.com/kobako/kobako/subako/sdk FuzzParseRequest fuzz_parse_request
compile_native_go_fuzzer github.com/kobako/kobako/subako/sdk FuzzServe fuzz_serve
compile_native_go_fuzzer github.com/kobako/kobako/wasi/preview2 FuzzFields fuzz_fields
compile_native_go_fuzzer github.com/kobako/kobako/wasi/preview2 FuzzRequestTarget fuzz_request_target
