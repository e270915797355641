package wasm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kobako/kobako/internal/race"
)

// goldenModes are the option sets whose output the golden digests pin: trapping checks, a fuel
// hook, and the engine's options (hook, direct exports, renamed empty module names).
var goldenModes = []struct {
	name string
	opts InstrumentOptions
}{
	{"trap", testOpts},
	{"hook", hookOpts},
	{"engine", InstrumentOptions{FuelModule: "kobako:fuel", FuelGlobal: "remaining", FuelHook: "exhausted",
		MaxTableElements: 10_000, DirectPrefix: "kobako:direct:", EmptyModule: "kobako:empty"}},
}

// goldenDigests pins Instrument's output, byte for byte, for every core module among the
// repository's fixtures (components contribute the core modules they embed, named file#index):
// the first 8 bytes of the SHA-256 of the input, then of the output in each of goldenModes. The
// digests were computed by TestGoldenPrint from the instrumenter as it was at 3e60bae, before
// Decode and Instrument shared one pass over each body, so that rewriting how Instrument works
// cannot change what it writes. An input whose digest differs (a rebuilt fixture) is skipped:
// print the table again from a tree whose instrumenter is known good.
var goldenDigests = map[string][4]string{
	"bench/testdata/hello/hello.wasm":                          {"5b91355c8c2b3e27", "5d045e66dda22c52", "cb05ae2c141998e1", "cb05ae2c141998e1"},
	"bench/testdata/reactor/reactor.wasm":                      {"77d66fc36e8d8e9a", "725f43b60b2e8dfb", "74eb579760f7ed5b", "74eb579760f7ed5b"},
	"bench/testdata/wat/fib.wasm":                              {"ade014a8fbb5ec49", "fb54d374a142ff7a", "8e68edfe9bc5bbbf", "30e5e324e50b8f32"},
	"bench/testdata/wat/fuel.wasm":                             {"b5a3840aa1e28754", "07f2a85601d9d7a4", "6734cdbfce506d6d", "6734cdbfce506d6d"},
	"bench/testdata/wat/loop.wasm":                             {"1a3b3af46706a6ab", "a188c86638cd4208", "7f0c5c44dafd5f34", "e455c9acb1287775"},
	"bench/testdata/wat/tiny.wasm":                             {"b6be701db4450b81", "d199e2476bfce73c", "a9bf86e84250b4de", "a9bf86e84250b4de"},
	"cmd/kobako/example/hello.wasm":                            {"38356ca97c00f3a3", "be2b09aa05df6de8", "3f7b7f8a84896cdc", "3f7b7f8a84896cdc"},
	"cmd/kobako/testdata/printenv/printenv.wasm":               {"25fe9e0992bba31f", "97ed74a8562368f5", "f0b296bb80f1b522", "ed32d8427d63d198"},
	"component/testdata/diff/diff.wasm#0":                      {"e6e8dc5e73061a27", "d08c49eb7369d3a3", "8df2e0e81ea4626e", "718ef76c8c9e1e66"},
	"component/testdata/diff/loop.wasm#0":                      {"07fa2b2d486914fc", "254757091fd1166a", "65ca24c927cc5a82", "65ca24c927cc5a82"},
	"component/testdata/fixture.wasm#0":                        {"de4fffc32df7af0f", "740ea3f8630fc96f", "cd5466ea44233b6f", "7d7cda67b47bb72c"},
	"component/testdata/fixture.wasm#1":                        {"a10a28ecec3a66a4", "7c3bd37759c64c8c", "671cbb5aee54cd72", "b83cdc4ca30e282d"},
	"component/testdata/fixture.wasm#2":                        {"d0ba10be3bdd28e6", "69a11295e1af03e8", "8131f4a413a21778", "8131f4a413a21778"},
	"component/testdata/hello.wasm#0":                          {"80eb8e92b1907373", "f9cb77f669b46114", "3a65c0ecbfad819f", "e3e09f5df768e9a3"},
	"component/testdata/hello.wasm#1":                          {"8e150bf1aeae0881", "4119b11ebbf16cf3", "5d4b3f3bdc175bb1", "996a96a8a48aba1a"},
	"component/testdata/hello.wasm#2":                          {"36e6a97c68492ae8", "e223bd5551957f8a", "0488c8bdf3f9ea42", "bb942bbdf1eaacff"},
	"component/testdata/hello.wasm#3":                          {"99e72e707293e3b2", "a453ec4e90048db4", "8af30fcd12d741eb", "8af30fcd12d741eb"},
	"component/testdata/invalid/bag-constructor.wasm#0":        {"0029bd073dffe4a9", "adf12019b1b58656", "caae16ec31183198", "caae16ec31183198"},
	"component/testdata/invalid/bag-method.wasm#0":             {"c8c197fd3e77888d", "a54dca5b372a6a4a", "95ddbfb94e7ee520", "95ddbfb94e7ee520"},
	"component/testdata/invalid/core-arg-missing.wasm#0":       {"d6ec1530239f0de3", "38563d826d50ca27", "405d5f3f54b568b5", "405d5f3f54b568b5"},
	"component/testdata/invalid/core-arg-type.wasm#0":          {"82008c865eb3b62b", "f6c34cc0b3a8db16", "407b8dd85e9eb762", "407b8dd85e9eb762"},
	"component/testdata/invalid/core-arg-type.wasm#1":          {"d6ec1530239f0de3", "38563d826d50ca27", "405d5f3f54b568b5", "405d5f3f54b568b5"},
	"component/testdata/invalid/core-module-dup-import.wasm#0": {"8a16176fdd81ae1d", "de97d68b38594539", "befed7532064e107", "c689c301beeca6f2"},
	"component/testdata/invalid/dtor-type.wasm#0":              {"3fd78a281d276a50", "e91c4a56400157e0", "9c746b2f993d4a33", "045d9130c75b7f39"},
	"component/testdata/invalid/lift-needs-memory.wasm#0":      {"3c327583a49d7c7f", "aea18e0eb4e36232", "3a075c11d9e37b65", "3a075c11d9e37b65"},
	"component/testdata/invalid/lift-signature.wasm#0":         {"9205fdb4c3f1c3a8", "5be002bc77ffd896", "c3338e76b0a6e65b", "c3338e76b0a6e65b"},
	"component/testdata/invalid/post-return-type.wasm#0":       {"b91f86d13979de7e", "b51ae065dc62663d", "5e039ff9ce4647c4", "4604c392798a1fda"},
	"component/testdata/invalid/realloc-type.wasm#0":           {"cc05c3741d81e203", "5dd12ec4b147a8b9", "297570fd5dee0e6d", "a52dd1fd319d07e1"},
	"component/testdata/invalid/realloc-without-memory.wasm#0": {"0a96a98cead14938", "3a0939630cb4f56d", "a4f9f44e342ae906", "bd71eac703bc9f19"},
	"component/testdata/invalid/start-results.wasm#0":          {"4ae40064435eb0b6", "d95a55a5f72dcb9c", "32b15214ff3487b8", "1473b946d0856734"},
	"component/testdata/invalid/start-unused-result.wasm#0":    {"4ae40064435eb0b6", "d95a55a5f72dcb9c", "32b15214ff3487b8", "1473b946d0856734"},
	"component/testdata/plugin.wasm#0":                         {"f03ee941297330de", "d55042c9b3981715", "6379dea652b238e3", "7b8b6c2e65fe9b79"},
	"component/testdata/real/gocmd.wasm#0":                     {"b12dc598f5a4e7e1", "061107cf82584fdc", "168964f11145283a", "b06e939694b31378"},
	"component/testdata/real/gocmd.wasm#1":                     {"c8857597d562b330", "e76dd0acbda8875b", "3d1dd042a91ec38b", "2e2e6113f09f96e0"},
	"component/testdata/real/gocmd.wasm#2":                     {"a9259cc8d440de94", "dd4be134d4ee642d", "92785fbeab8346cf", "babaa6b8c3673dc5"},
	"component/testdata/real/gocmd.wasm#3":                     {"77d8d4290167387f", "8fb772941e08f583", "b6dbec0d02430e2a", "b6dbec0d02430e2a"},
	"component/testdata/real/goplugin.wasm#0":                  {"8704c2e0044b4ea6", "ed2ad6647d7977e9", "c64792c37510e1fb", "f7f24714293cf162"},
	"component/testdata/real/goplugin.wasm#1":                  {"8acb2a5d2ce4ffc3", "e08c374b10e7528e", "8e9dff23ffd1ecfc", "d62b6cb8a6123086"},
	"component/testdata/real/goplugin.wasm#2":                  {"bb87ee1b2cf1ff28", "c11c74d29d9d5060", "a1c305c82c565b29", "314f1813852738ed"},
	"component/testdata/real/goplugin.wasm#3":                  {"5ce61acb5713003e", "37e6aee9998bcea8", "3bf5952fdc8001e2", "3bf5952fdc8001e2"},
	"component/testdata/real/js-full.wasm#0":                   {"03fc78011dcaf799", "cbb577c1567d4bff", "337e04b658d87131", "042e8904df9333ca"},
	"component/testdata/real/js-full.wasm#1":                   {"2c3d7a22aa3cec9c", "f95e142bbfd4f202", "de2d62fdf15b67dd", "b3820fb904abd5bd"},
	"component/testdata/real/js-full.wasm#2":                   {"a728f22691f6cdbb", "6408e3f4a77d8464", "22e79cc5a609fe9f", "c24f748e87e4a6fe"},
	"component/testdata/real/js-full.wasm#3":                   {"a0f5e2d13286e6a4", "93901b9c45d7835b", "5cf728da09b65464", "5cf728da09b65464"},
	"component/testdata/real/js.wasm#0":                        {"4a03e1bd6b388b7b", "0402330fd9df0fff", "3ad8280c8b6e9a50", "b7b72d458c4aa19d"},
	"component/testdata/runtime/ascribe-fresh.wasm#0":          {"e416d4acd38498c0", "b6cf364f93eeadb6", "bd933e0322d0c579", "3943db7343e03ad5"},
	"component/testdata/runtime/calc.wasm#0":                   {"b524942aa25b21f6", "961d2f598cac7658", "dbb317d2ebbef4f9", "aa409f86fffcbc95"},
	"component/testdata/runtime/counter.wasm#0":                {"c004d160a384b904", "1ad35280e8285e06", "5d150019ce226663", "410b17e3f31e0b3c"},
	"component/testdata/runtime/counter.wasm#1":                {"0819f2c914c62ab9", "50275cb5b7a6fc57", "a58047a409434ab1", "eb30925a9f6a4e16"},
	"component/testdata/runtime/empty-module.wasm#0":           {"4fa3832057a5563c", "0f5b2c78257614ae", "9653a50fdf9cdd38", "45d583278556bce3"},
	"component/testdata/runtime/empty-module.wasm#1":           {"3069549ecfa7a514", "88b759c256293895", "35e02ffca369506b", "4a2e1fe3a9fc302c"},
	"component/testdata/runtime/empty-module.wasm#2":           {"ea7e49db21b0170d", "a1ca612817c8e0d4", "8e788e7abb169ceb", "c529bb5468201208"},
	"component/testdata/runtime/export-alias.wasm#0":           {"5bdf380f47263891", "c0ae7cb7865cf32c", "5a49cbf4ba4ed079", "7b21a6a2ca54124d"},
	"component/testdata/runtime/export-alias.wasm#1":           {"a500d06c1efc566d", "20fd7eb548e2046e", "ae1fed59ce4232cc", "fee20bb4c0c399d4"},
	"component/testdata/runtime/export-alias.wasm#2":           {"6e565373d1bdae5b", "8de4b7bea817d1f0", "ebf2424ad1416ee9", "c57ec2176cd23a23"},
	"component/testdata/runtime/host.wasm#0":                   {"9c903833402f054b", "aacb7ced14978c14", "117f9e5df680c40b", "0016c624b18926ad"},
	"component/testdata/runtime/host.wasm#1":                   {"f436fc7961463343", "fde9799dd1025065", "f12e12d197974b6d", "7995fc425dd59370"},
	"component/testdata/runtime/host.wasm#2":                   {"9e9b21337cc162ae", "db95634b1e36291b", "7605da05e89861d0", "75b206cc6e2ea190"},
	"component/testdata/runtime/import-args.wasm#0":            {"36ee396a60d52bde", "48472e75f2ca2cdb", "6ec27cedb1017768", "37f1d0d113639ba1"},
	"component/testdata/runtime/import-args.wasm#1":            {"5d9832ca576b85fc", "fcf3de7649600f90", "0925d7f6a9f6e527", "2bf64bd20f6e0370"},
	"component/testdata/runtime/lift-lowered.wasm#0":           {"e8a02fe323d655f6", "25b85fc7ea0641c5", "6da535acfb465a46", "ae4c7e9b59d802ba"},
	"component/testdata/runtime/nested-resource.wasm#0":        {"80779c2d6d83c6b8", "fe0ca1594f15f1e8", "9eda19d82dfd9b14", "28a46356ba89e28a"},
	"component/testdata/runtime/nested-resource.wasm#1":        {"44fd562b0666a12f", "ad17c5aca46291da", "d0a78f413fe5dba9", "5a1ebcf2f29147c8"},
	"component/testdata/runtime/nested-resource.wasm#2":        {"7d4bf765cf3fd17f", "dc9ee2933bbdbcc8", "2a78a695770fa20b", "8be6f23a6bd25d8f"},
	"component/testdata/runtime/nested-twice.wasm#0":           {"80779c2d6d83c6b8", "fe0ca1594f15f1e8", "9eda19d82dfd9b14", "28a46356ba89e28a"},
	"component/testdata/runtime/nested-twice.wasm#1":           {"ee8d2387c8b5f14c", "be4c348a58351e96", "7d154fcfac48eed8", "5bc4a4ff1c3152b5"},
	"component/testdata/runtime/nested-twice.wasm#2":           {"24efa877daa46afc", "8c86d926385d794a", "1cd61fd62d4cc934", "877c85aeff90c3e8"},
	"component/testdata/runtime/nested.wasm#0":                 {"37d4d89aaa9a0241", "452c91bfd4093366", "a35d25c73e0791ec", "08efb6effa5750e5"},
	"component/testdata/runtime/nested.wasm#1":                 {"f6501fc324cd78a7", "a99e18852df58eb2", "06560344899bd9f3", "9235f93b7a1ed664"},
	"component/testdata/runtime/nested.wasm#2":                 {"dc91c5da7bc0769e", "5555448c910a6d8b", "5244b9b08176be96", "5bc2a2d2d3576ae2"},
	"component/testdata/runtime/outer-alias.wasm#0":            {"7210e735628ed4a0", "b7e4bc622a71976f", "bf614b292c14e65c", "a21bfb786b67e2ca"},
	"component/testdata/runtime/outer-alias.wasm#1":            {"ed80de3786f034c2", "b7e036bb89f89b59", "80af3c6c9cf0024f", "7834d4346512d5cf"},
	"component/testdata/runtime/padding.wasm#0":                {"c7605424b8d33463", "28e66360691e07f2", "8a06a494a0d342ba", "ef32be37f38987f0"},
	"component/testdata/runtime/plugin.wasm#0":                 {"8f6c453b5733fad4", "5e3e4b4590056438", "27a90222b79a4ce9", "325dfc9bc87457c9"},
	"component/testdata/runtime/start.wasm#0":                  {"78c64638561f08ee", "a17800c3fe70723b", "55d60ccc2dcdf96a", "4122ba82d6a487b0"},
	"component/testdata/runtime/start.wasm#1":                  {"dd06a298e6320691", "e6e0609f6f794a86", "10bb7a435230f073", "345502e2cf843fcb"},
	"component/testdata/sections.wasm#0":                       {"66abbc6f4ecfc940", "855d1830655443ea", "f5e830987a9a465c", "8daa6873cfd1c717"},
	"component/testdata/sections.wasm#1":                       {"a687a38e129ea340", "4209a4e3c1cab1e8", "13e97415fd936785", "f4f856d148310f62"},
	"component/testdata/start.wasm#0":                          {"daffcf737df4cacd", "7120be1e2245ad36", "bfd7da1744f469fc", "3318eb13c6b8cbee"},
	"component/testdata/types.wasm#0":                          {"39cc6551177e6922", "109df2e553b77711", "a5da7b980849853f", "c27119f356d4d18f"},
	"component/testdata/types.wasm#1":                          {"f0368ca37b4550c4", "3d377055fe12f591", "18f931644726ae7b", "18f931644726ae7b"},
	"engine/testdata/bigmem.wasm":                              {"3a067a5a53f9ac0e", "b3f4687b9511d69b", "ecf28da479fa0103", "ecf28da479fa0103"},
	"engine/testdata/callfib.wasm":                             {"acf38c94d31ed48f", "7ca00ed6016e6f72", "f9bf7e55dd4d7bb1", "d7d61e6dc6aa7133"},
	"engine/testdata/direct_import.wasm":                       {"14784cc002fb8426", "0e40dfb750135aa8", "f4cdd89a2d863fda", "58084830faa38592"},
	"engine/testdata/empty_module.wasm":                        {"e80517cb7dd824b3", "3a8426f541593822", "a18ebf8a3203751e", "2443a9adaa0005fd"},
	"engine/testdata/empty_module_glue.wasm":                   {"92ac46117d5378b2", "202856992926eed3", "6e267ede26258b1f", "c5215093d7021f08"},
	"engine/testdata/empty_module_provider.wasm":               {"011ca19c09223725", "5d63b71c9dce6ee7", "b8db8a32b324b202", "b8db8a32b324b202"},
	"engine/testdata/fib.wasm":                                 {"2dce179f1ce2d334", "7f272f86780ddcb4", "c3dcd1d3f47a6ace", "8e74612ca147551d"},
	"engine/testdata/hostcall.wasm":                            {"a19f3913afed1418", "43f369068fdd8c2a", "bba5517ecbc4cb8d", "2d73c605570cf853"},
	"engine/testdata/reenter.wasm":                             {"b8358a97be7a2b46", "7e1cf90dbf556024", "bb89dac45787a256", "5e09d3fe5bee909f"},
	"engine/testdata/snap_datadrop.wasm":                       {"a0f6892c645b8dd9", "b6c9af1103f20202", "990f2be2b90c6ad8", "54a74fab8c5ec06d"},
	"engine/testdata/snap_elemdrop.wasm":                       {"0e6bb69dd6f70a35", "deae7353e14a1b89", "62b90b25878c2f83", "a3a3374b9e0294a6"},
	"engine/testdata/snap_exporttable.wasm":                    {"98edaa39bc33039e", "7873898115726df2", "cd97721a9c6628b4", "cd97721a9c6628b4"},
	"engine/testdata/snap_importglobal.wasm":                   {"d374090c55ef23f5", "6de39c68b9a9f434", "eec9959a14305546", "eec9959a14305546"},
	"engine/testdata/snap_importmemory.wasm":                   {"fa4e75bff843d1d5", "73b2be2124ef58a9", "a1d03062c35cbb55", "a1d03062c35cbb55"},
	"engine/testdata/snap_importtable.wasm":                    {"f5bc63bca74c310d", "1e27871955623e19", "83f98ec63b100d65", "83f98ec63b100d65"},
	"engine/testdata/snap_refglobal.wasm":                      {"f887999e20afcdc0", "b9194856e908e457", "fd8ae6fc54df57a2", "fd8ae6fc54df57a2"},
	"engine/testdata/snap_reserved.wasm":                       {"47e721008314edbb", "958bb5744b0ffb48", "e0073a1b566ec416", "e0073a1b566ec416"},
	"engine/testdata/snap_tablecopy.wasm":                      {"39899d7a594fa1d0", "44abf9a4a00cade0", "d0649e8fece8ebf9", "85ae3a09a1e0a28e"},
	"engine/testdata/snap_tablefill.wasm":                      {"c1e7a996b05f32c7", "fadf15d6e573e952", "7561914e1cb4b785", "073467ab0815d468"},
	"engine/testdata/snap_tablegrow.wasm":                      {"c1ea365e910e28a6", "f17fa923009a3997", "eb408a5d51715f78", "2fee5c1150035187"},
	"engine/testdata/snap_tableinit.wasm":                      {"f6ba3c07a18a8de2", "03a7ebce17a951b3", "794da6e9d4bb6b6d", "6366bb0fbb737e6b"},
	"engine/testdata/snap_tableset.wasm":                       {"dde4dd14fb2c80bf", "2953cb0b85622ed0", "476e62813a27b483", "a4cc66cb510ab1fc"},
	"engine/testdata/snapshot.wasm":                            {"684398cac5c1bbf8", "a3c9b4fb973d7b11", "07829a19f83d1e10", "1a8a8cf232eaa652"},
	"engine/testdata/spin.wasm":                                {"7f92abefd00c761a", "df369d668bacb1c7", "1f95753589c9747c", "1f95753589c9747c"},
	"engine/testdata/start_spin.wasm":                          {"77b4ed62dfff570a", "a19857e1bdea5c76", "3617f15adcd7962d", "3617f15adcd7962d"},
	"engine/testdata/tables.wasm":                              {"1c10844ee369cc8f", "4046e24a22cc47df", "e3d4e422d937fa2d", "79b9d931d7813a93"},
	"engine/testdata/traps.wasm":                               {"abc96debf3fc5018", "5899667396c3f2fb", "68f4cea4969d31c6", "59178b21a74ecb11"},
	"internal/wasm/testdata/allops.wasm":                       {"c0951d63531da542", "7fa05bc255250d62", "812913b14dce114d", "4040971cf2c4dba0"},
	"internal/wasm/testdata/control.wasm":                      {"6def1aa569851128", "adb7802284cd39d9", "664f67705a255bf1", "5c9db21e4a6e7d36"},
	"internal/wasm/testdata/direct.wasm":                       {"cfd7ed921f4e7cbe", "2fdad688d633b503", "08a280fdd5f07e03", "ae3e9caea0fb6897"},
	"internal/wasm/testdata/env.wasm":                          {"d953c444d7a9c48c", "82b74dfc60ba1f36", "66128ddb01275f5f", "8bcfd91f4ba3c9f9"},
	"internal/wasm/testdata/exhaust.wasm":                      {"7f92abefd00c761a", "df369d668bacb1c7", "1f95753589c9747c", "1f95753589c9747c"},
	"internal/wasm/testdata/fib.wasm":                          {"801f30c371347841", "d1b9caae29a24df6", "aeb6ff2f3b89084a", "13891b84f643df4c"},
	"internal/wasm/testdata/globals.wasm":                      {"bad168192ca8e46a", "113a0291a56afd06", "03d42a248998ec7b", "a859a3f49b76ad3d"},
	"internal/wasm/testdata/hook.wasm":                         {"35228108baaf7a5f", "d85d9f729d60fbee", "a8057ff19207ae9c", "c3d48f0cdbc948a9"},
	"mcpserve/testdata/mcptest/module.wasm":                    {"4b420bc27ff9f676", "b954361e89339a9a", "f429c7f21fddba4b", "687bb5b16a7aadcc"},
	"subako/example/module.wasm":                               {"e1a941611a22d294", "01a149e97522cae3", "e08e8e626c55eae0", "d763c29c11fc1404"},
	"subako/sdk/examples/fetch/module.wasm":                    {"a31a89d36acd211a", "908b649b6d18b858", "06692b6b7b65e990", "06692b6b7b65e990"},
	"subako/sdk/examples/hello/module.wasm":                    {"6ee01a8a5e9ff7e7", "c7eb0f2b5f4b4304", "4cbbb107f51ac09c", "4cbbb107f51ac09c"},
	"subako/sdk/examples/swatch/module.wasm":                   {"adaf7479f5261339", "b0d08ad2eb59c1b4", "c46434925095f8f8", "c46434925095f8f8"},
	"subako/testdata/big_stdout.wasm":                          {"c800e55135ef2a75", "e82ae0bcf4ff55d9", "0686395a4f9f0412", "5dd28d84e2bb018a"},
	"subako/testdata/everything.wasm":                          {"7439587747d03cd4", "10eb2fcba983805d", "99b60c145366baca", "99b60c145366baca"},
	"subako/testdata/exit_early.wasm":                          {"0cebd8d070bbe02e", "fa9ec5e136c8258f", "79a95ed655644dab", "98c3d658f1358cc1"},
	"subako/testdata/exit_nonzero.wasm":                        {"dde28b0de0324579", "f19bc997b723c599", "4a41172dd3238861", "0b00fcb35df84294"},
	"subako/testdata/linger.wasm":                              {"6bdd04ff995b327b", "dec41b2bcebfad89", "dd6388d8bed50c2b", "439f641a79d748cf"},
	"subako/testdata/memgrow.wasm":                             {"438556e1fb89d248", "81f9dab56db6f174", "47297092f07466c5", "e87802472338d1c5"},
	"subako/testdata/not_complete.wasm":                        {"fe3a7dd6a0726048", "dcfa5fbf465c4b24", "10ab0979988f6284", "440ed77d07fe3db7"},
	"subako/testdata/not_json.wasm":                            {"2e5d0bbc353e0dda", "9e2dfbe14c5cb380", "45a8394a4524b1e2", "99bca03177ee3f0f"},
	"subako/testdata/notify.wasm":                              {"54a735bec5a472d5", "027f0fa9f03a333a", "87a6dce00f1ea7b9", "c4bb6c95dc0bc249"},
	"subako/testdata/own_request.wasm":                         {"7e8fdc4e782d45ee", "e179c5a01a024c03", "d709f6f863cf5382", "0bf692e2d899d0f3"},
	"subako/testdata/rpc_error.wasm":                           {"91517c473478f442", "532a16194f35ee30", "9ed136219dd3f295", "50b1b87901eac483"},
	"subako/testdata/spin.wasm":                                {"1d3f3921d304db84", "c5d1294dbf089ab6", "c6bebef0fc8b2a73", "a0553168f02e50e0"},
	"subako/testdata/tiny.wasm":                                {"1093e635518fd285", "5baa0057f4f47965", "088eb0473a338990", "3fbddfcf7d8d8d56"},
	"subako/testdata/trap.wasm":                                {"42af2667db782aaa", "9fad25c21c0c35e5", "ebce37336ffc6b04", "06b8644c670727cc"},
	"subako/testdata/unknown_id.wasm":                          {"a0acba1824383f57", "de7a71e2c9c8ed40", "d55a72925ffb1960", "520948e76a8643f5"},
	"subako/testdata/validate/bad_signature.wasm":              {"10a94d6ae60b0c41", "5ddad19249b9d6dd", "88ec24f30fadb2ca", "88ec24f30fadb2ca"},
	"subako/testdata/validate/foreign_import.wasm":             {"3bd31f41007ad27e", "c73eff33146de8ef", "23342a86f516152d", "23342a86f516152d"},
	"subako/testdata/validate/memory_func.wasm":                {"d0c5aee4d2794d5d", "2329e99aa03ad842", "61046107331cf8e2", "61046107331cf8e2"},
	"subako/testdata/validate/memory_import.wasm":              {"146a7d403a7471f7", "8f4b01c22eddb65d", "c5181ac8fd53ce30", "c5181ac8fd53ce30"},
	"subako/testdata/validate/no_memory.wasm":                  {"5647c39a1d25d872", "d75ec77c4f734026", "e83bc88d7f1fbcd0", "e83bc88d7f1fbcd0"},
	"subako/testdata/validate/no_start.wasm":                   {"86b83c292b6362ce", "f407c006f06881e5", "d7ff024a5063e8a2", "d7ff024a5063e8a2"},
	"subako/testdata/validate/ok_features.wasm":                {"8f057b3538f79230", "6a0c58500383a419", "16a4d78335af37cb", "3df9242edb3bcd7c"},
	"subako/testdata/validate/start_params.wasm":               {"7127fa6b70b24536", "587dd3c0d9de95a0", "d7b91370738f9e27", "d7b91370738f9e27"},
	"subako/testdata/validate/unknown_func.wasm":               {"4c67bcd99cc62807", "1a27d48502fe2cbf", "633babc5c324bb3c", "633babc5c324bb3c"},
	"wasi/preview1/testdata/bad_signature.wasm":                {"dd427108a57ec491", "7bcda753adbfe5d2", "1df99ebb2f851981", "1df99ebb2f851981"},
	"wasi/preview1/testdata/cfs/cfs.wasm":                      {"a5454643e31a7c8e", "169e6a25e556192a", "8d10a0cc37f170ac", "50262b51670c4594"},
	"wasi/preview1/testdata/gofs/gofs.wasm":                    {"76d08bf82b285552", "599c776f1c916152", "13c0024aff173651", "13c0024aff173651"},
	"wasi/preview1/testdata/hello.wasm":                        {"79688135c37054f4", "dfd14c47979626de", "e2b3ad4e68ba64f4", "e715fe9dc2774c0e"},
	"wasi/preview1/testdata/raw.wasm":                          {"b805baa80bc377a4", "886c6c28c7a6d402", "e3489f475db427fd", "4907d0b7b3139674"},
	"wasi/preview1/testdata/unknown_import.wasm":               {"d87ae82f7db34fdc", "792d2b2564a9af0d", "261e7de38dd83bde", "261e7de38dd83bde"},
	"wasi/preview2/testdata/exit7.wasm#0":                      {"8fa3f1e7cc4ba6c8", "5035d8a3eac47ae3", "68983207acecb6e3", "f812c2650e881f32"},
	"wasi/preview2/testdata/fs.wasm#0":                         {"a75b004d8895a235", "69410806c4f753c4", "cf9f8f8904f97548", "ee32e4eef1ad18a2"},
	"wasi/preview2/testdata/fs.wasm#1":                         {"3f76e0d8e3716b31", "629ebafef21176b7", "1218c4bd462692da", "6385942c29bf2195"},
	"wasi/preview2/testdata/http/fetch-tool.wasm#0":            {"c6a725fd6ac4b4b7", "1acc4bc423658d02", "8ec436807eb5619b", "97a1f3f7c07956ca"},
	"wasi/preview2/testdata/http/fetch-tool.wasm#1":            {"2c3d7a22aa3cec9c", "f95e142bbfd4f202", "de2d62fdf15b67dd", "b3820fb904abd5bd"},
	"wasi/preview2/testdata/http/fetch-tool.wasm#2":            {"0e3bb09ee5293abb", "05d2b1b860b9bd7e", "00c8c8e488537fb1", "28741821f138dabc"},
	"wasi/preview2/testdata/http/fetch-tool.wasm#3":            {"c6f14ca461ce6696", "e8a38380ea735cb5", "f84618cdc86b7133", "f84618cdc86b7133"},
	"wasi/preview2/testdata/http/goclient.wasm#0":              {"c27e24e53788d2fd", "67db3429687a9b7c", "b6bf1c01de52960c", "5094b8c8edaa6b5d"},
	"wasi/preview2/testdata/http/goclient.wasm#1":              {"8acb2a5d2ce4ffc3", "e08c374b10e7528e", "8e9dff23ffd1ecfc", "d62b6cb8a6123086"},
	"wasi/preview2/testdata/http/goclient.wasm#2":              {"36a7558ce1743788", "8e575d0a7aa94675", "19af67fae21d807f", "67c169674ec019eb"},
	"wasi/preview2/testdata/http/goclient.wasm#3":              {"638a20ef5ef1a1d0", "77a11ad595843c0c", "78bda1c8d6d34a91", "78bda1c8d6d34a91"},
	"wasi/preview2/testdata/probe.wasm#0":                      {"a75b004d8895a235", "69410806c4f753c4", "cf9f8f8904f97548", "ee32e4eef1ad18a2"},
	"wasi/preview2/testdata/probe.wasm#1":                      {"df77fa21b6c916e7", "afa941082fa164fa", "efd952e27a18fd3d", "902574cddc7d7506"},
	"wasi/preview2/testdata/runerr.wasm#0":                     {"5be929271c5357a4", "3361d5e893b4abe9", "00c3ac202cb7e9e4", "f721ab3a2f4a24b3"},
	"zeroclaw/runner/testdata/blocker.wasm#0":                  {"a90337b77cd39626", "4a2da30c58d32438", "45d2998385823874", "7b7e09ae7f561d9c"},
	"zeroclaw/runner/testdata/blocker.wasm#1":                  {"7a80b453d7903af7", "61e4f24321511c12", "bfcae32c1235d1fb", "cae6fe613203f56b"},
	"zeroclaw/runner/testdata/blocker.wasm#2":                  {"0ecd42712ed7d38a", "6790b9f9204439d7", "4623d718cca6ef2d", "4623d718cca6ef2d"},
	"zeroclaw/runner/testdata/channel-seed.wasm#0":             {"6495d1f42a115d32", "0c114234ed6514e5", "4ead3fd5b586eac9", "6a9d41b5226ec9c9"},
	"zeroclaw/runner/testdata/channel-seed.wasm#1":             {"8d0a6ce388102caf", "edfa3e7ca2b0fccc", "5bea67dfd4a91849", "84f45c67ad7b4d44"},
	"zeroclaw/runner/testdata/channel-seed.wasm#2":             {"b186536f5ab63d47", "cf25c24209af2c45", "513db2328b7c0326", "513db2328b7c0326"},
	"zeroclaw/runner/testdata/channel-v0.wasm#0":               {"f58a257045f78704", "080e90928b11c750", "edfdf3835fda9bda", "f193b9ab8f8494a7"},
	"zeroclaw/runner/testdata/channel-v0.wasm#1":               {"a9163a6bfa3f93c3", "8d8e72f294dcf2b2", "3ccf49174b19b972", "077ce13b9bc246a8"},
	"zeroclaw/runner/testdata/channel-v0.wasm#2":               {"77faf274012a2136", "1ff1380cf26becaa", "b133d605ab4f9f20", "b133d605ab4f9f20"},
	"zeroclaw/runner/testdata/configecho.wasm#0":               {"842b3eb1e4314cf5", "402e2d54933fcb45", "631e6351a24cdd44", "998ad6a0aacea994"},
	"zeroclaw/runner/testdata/configecho.wasm#1":               {"2c3d7a22aa3cec9c", "f95e142bbfd4f202", "de2d62fdf15b67dd", "b3820fb904abd5bd"},
	"zeroclaw/runner/testdata/configecho.wasm#2":               {"e0d7677314c2f89a", "13fd1818e838f2db", "867d9f1bbed23120", "f23e200f03a956f8"},
	"zeroclaw/runner/testdata/configecho.wasm#3":               {"7dcc65645ed3e7c0", "0e398e85cdcc6dad", "0e4b2b43ba159e3b", "0e4b2b43ba159e3b"},
	"zeroclaw/runner/testdata/gotool.wasm#0":                   {"9b6203b72a7a7364", "95df93d10531ca7f", "af5e8e1556f3942e", "5faf247933b390c7"},
	"zeroclaw/runner/testdata/gotool.wasm#1":                   {"8acb2a5d2ce4ffc3", "e08c374b10e7528e", "8e9dff23ffd1ecfc", "d62b6cb8a6123086"},
	"zeroclaw/runner/testdata/gotool.wasm#2":                   {"1d420d6bc7dbbaf7", "4934913aab192a23", "a682a33bf9e85b4d", "885e6ef18f84f102"},
	"zeroclaw/runner/testdata/gotool.wasm#3":                   {"ec9e6695052c3694", "11316cfaed864162", "2349af272ad23475", "2349af272ad23475"},
	"zeroclaw/runner/testdata/httptool.wasm#0":                 {"c5ee8c54dd78649a", "40cb51a487c82e33", "bc7df426de1c47a8", "7cc68d0f37b6c0d5"},
	"zeroclaw/runner/testdata/memory.wasm#0":                   {"3d847ad7762657fd", "febf6adc6bcd2667", "706257672d7a4422", "75c6e838c19cd759"},
	"zeroclaw/runner/testdata/misbehave.wasm#0":                {"da544ccd1a89db9e", "b07ab74bd533828a", "89ab3930310c8bb9", "684f967f4c9a536b"},
	"zeroclaw/runner/testdata/misbehave.wasm#1":                {"c5de646f547b731e", "466cded8337f0de1", "6e691979ae1fc037", "6cefa5a61827d5ce"},
	"zeroclaw/runner/testdata/misbehave.wasm#2":                {"594d4f4cae851cdc", "d3883282641df92d", "8d38575d03a8454e", "8d38575d03a8454e"},
	"zeroclaw/wasmcheck/testdata/tool.wasm#0":                  {"41c419ccbd899087", "6115c1ed8a1f1164", "8db08a28cf6a298f", "f519a0713a2887f0"},
}

// TestGoldenRewrite checks Instrument's output against goldenDigests.
func TestGoldenRewrite(t *testing.T) {
	root := filepath.Join("..", "..")
	files := map[string]bool{}
	for name := range goldenDigests {
		file, _, _ := strings.Cut(name, "#")
		files[file] = true
	}
	checked := 0
	for file := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if race.Enabled && len(b) > 4<<20 {
			continue // the race detector makes the 12 MB components take minutes
		}
		for name, mb := range goldenCoreModules(file, b) {
			want, ok := goldenDigests[name]
			if !ok {
				continue
			}
			if in := sha256.Sum256(mb); hex.EncodeToString(in[:8]) != want[0] {
				t.Logf("%s: the fixture changed since the digests were taken; skipped", name)
				continue
			}
			for i, gm := range goldenModes {
				m := mustDecode(t, mb)
				out, err := Instrument(m, gm.opts)
				if err != nil {
					t.Errorf("%s (%s): %v", name, gm.name, err)
					continue
				}
				if s := sha256.Sum256(out); hex.EncodeToString(s[:8]) != want[i+1] {
					t.Errorf("%s (%s): output digest %x, want %s", name, gm.name, s[:8], want[i+1])
				}
				if gm.name != "engine" {
					continue
				}
				// Instrument used the instructions Decode recorded and dropped them: a second
				// run on the same Module decodes every body again and must write the same.
				again, err := Instrument(m, gm.opts)
				if err != nil || !bytes.Equal(again, out) {
					t.Errorf("%s (%s): a second Instrument of the same Module differs (%v)", name, gm.name, err)
				}
			}
			checked++
		}
	}
	if checked < len(goldenDigests)/2 {
		t.Errorf("checked %d of %d golden modules", checked, len(goldenDigests))
	}
}

// goldenCoreModules returns the core modules of a fixture: the file itself if it is a core module,
// or the core modules a component embeds (at any depth), named file#index.
func goldenCoreModules(name string, b []byte) map[string][]byte {
	out := map[string][]byte{}
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return out
	}
	if b[4] == 1 && b[5] == 0 && b[6] == 0 && b[7] == 0 {
		out[name] = b
		return out
	}
	n := 0
	var walk func(b []byte) bool
	walk = func(b []byte) bool {
		r := newReader(b[8:], 8)
		for !r.Done() {
			id, err := r.Byte()
			if err != nil {
				return false
			}
			size, err := r.U32()
			if err != nil {
				return false
			}
			p, err := r.Bytes(uint64(size))
			if err != nil {
				return false
			}
			switch id {
			case 1: // core module
				out[fmt.Sprintf("%s#%d", name, n)] = p
				n++
			case 4: // nested component
				if len(p) >= 8 && !walk(p) {
					return false
				}
			}
		}
		return true
	}
	if !walk(b) {
		return map[string][]byte{}
	}
	return out
}

// TestGoldenPrint prints the digests of every fixture's rewrite that Decode and Instrument accept,
// in the form of goldenDigests. Run with KOBAKO_PRINT_GOLDEN=1.
func TestGoldenPrint(t *testing.T) {
	if os.Getenv("KOBAKO_PRINT_GOLDEN") == "" {
		t.Skip("set KOBAKO_PRINT_GOLDEN=1 to print the golden digests")
	}
	root := filepath.Join("..", "..")
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".wasm") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		mods := goldenCoreModules(filepath.ToSlash(rel), b)
		for name, mb := range mods {
			var sums []string
			for _, gm := range goldenModes {
				m, err := Decode(mb, Limits{})
				if err != nil {
					break
				}
				out, err := Instrument(m, gm.opts)
				if err != nil {
					break
				}
				s := sha256.Sum256(out)
				sums = append(sums, hex.EncodeToString(s[:8]))
			}
			if len(sums) == len(goldenModes) {
				in := sha256.Sum256(mb)
				lines = append(lines, fmt.Sprintf("\t%q: {%q, %q, %q, %q},", name, hex.EncodeToString(in[:8]), sums[0], sums[1], sums[2]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
}

// TestOutputSize checks that Instrument allocates the output of real Go modules once: the estimate
// it sizes the output by covers the output, without being far above it.
func TestOutputSize(t *testing.T) {
	var estimate, size int
	debugOutputSize = func(e, s int) { estimate, size = e, s }
	defer func() { debugOutputSize = nil }()
	for _, f := range []string{"hello/hello.wasm", "reactor/reactor.wasm"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "bench", "testdata", filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, gm := range goldenModes {
			if _, err := Instrument(mustDecode(t, b), gm.opts); err != nil {
				t.Fatal(err)
			}
			if estimate < size || estimate > size+size/4 {
				t.Errorf("%s (%s): estimated %d bytes for an output of %d", f, gm.name, estimate, size)
			}
		}
	}
}

// TestRecordLimit checks that Decode keeps at most recordBytesPerByte bytes of recorded
// instructions per byte of code, and that Instrument then decodes the bodies again and writes the
// same as when they were recorded.
func TestRecordLimit(t *testing.T) {
	const depth = 20_000   // 40 kB of code, 800 kB of recorded instructions
	nested := []byte{0x00} // no locals
	for i := 0; i < depth; i++ {
		nested = append(nested, opBlock, 0x40)
	}
	for i := 0; i < depth; i++ {
		nested = append(nested, opEnd)
	}
	nested = append(nested, opEnd)
	plain := []byte{0x00, opBlock, 0x40, 0x41, 0x01, opBrIf, 0x00, opEnd, opEnd}
	mod := func(bodies ...[]byte) []byte {
		funcs := []byte{byte(len(bodies))}
		code := []byte{byte(len(bodies))}
		for _, b := range bodies {
			funcs = append(funcs, 0x00)
			code = appendU32(code, uint32(len(b)))
			code = append(code, b...)
		}
		return module(sec(secType, 0x01, 0x60, 0x00, 0x00), sec(secFunction, funcs...), sec(secCode, code...))
	}
	small := mustDecode(t, mod(plain))
	if small.Code[0].code == nil {
		t.Fatal("Decode recorded nothing of a small body")
	}
	want, err := Instrument(small, hookOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, bodies := range [][][]byte{{nested}, {plain, nested}} {
		m := mustDecode(t, mod(bodies...))
		for i, c := range m.Code {
			if c.code != nil {
				t.Errorf("%d bodies: body %d recorded past the limit", len(bodies), i)
			}
		}
		if _, err := Instrument(m, hookOpts); err != nil {
			t.Fatal(err)
		}
	}
	// The limit leaves the output alone: the plain body alone, decoded again, writes the same.
	again, err := Instrument(small, hookOpts)
	if err != nil || !bytes.Equal(again, want) {
		t.Errorf("Instrument after dropping the recorded instructions differs (%v)", err)
	}
}
