// node componentize.mjs <core.wasm> <wit-file> <world> <out.wasm> [utf8|utf16|compact-utf16]
// Embeds the WIT world into the core module and builds the component with wit-component (through
// jco's API; `jco embed` cannot read WIT files in jco 1.35). The core module must not import WASI.
import { readFile, writeFile } from "node:fs/promises";
import { componentEmbed, componentNew } from "@bytecodealliance/jco";
const [core, witFile, world, out, stringEncoding = "utf8"] = process.argv.slice(2);
const embedded = await componentEmbed({
  binary: await readFile(core),
  witSource: await readFile(witFile, "utf8"),
  world,
  stringEncoding,
});
await writeFile(out, await componentNew(embedded, []));
