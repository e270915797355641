// node parse.mjs a.wat b.wat ... : assembles component text format files with jco's parse (the
// wasm-tools text parser) in one process, writing a.wasm beside a.wat.
import { readFile, writeFile } from "node:fs/promises";
import { parse } from "@bytecodealliance/jco";
for (const f of process.argv.slice(2)) {
  await writeFile(f.replace(/\.wat$/, ".wasm"), await parse(await readFile(f, "utf8")));
}
