// node componentize.mjs <core.wasm> <world.wit|-> <world> <out.wasm> <reactor|command>
// Embeds the WIT world (none for "-": a command's world comes from the adapter, wasi:cli/run)
// into a Go core module and makes it a component with wit-component (jco's
// API: `jco embed` cannot read WIT files in jco 1.35), linking in the WASI preview 1 adapter jco
// ships (reactor for a library of exports, command for a program with main).
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { componentEmbed, componentNew } from "@bytecodealliance/jco";

const [core, witFile, world, out, kind] = process.argv.slice(2);
if (kind !== "reactor" && kind !== "command") throw new Error(`adapter kind ${kind}: want reactor or command`);
const jcoDir = dirname(dirname(createRequire(import.meta.url).resolve("@bytecodealliance/jco")));
const adapter = await readFile(join(jcoDir, "lib", `wasi_snapshot_preview1.${kind}.wasm`));
const binary = await readFile(core);
const embedded = witFile === "-" ? binary : await componentEmbed({
  binary,
  witSource: await readFile(witFile, "utf8"),
  world,
  stringEncoding: "utf8",
});
await writeFile(out, await componentNew(embedded, [["wasi_snapshot_preview1", adapter]]));
