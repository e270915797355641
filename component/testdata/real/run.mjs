// node run.mjs <dir>/plugin.js : calls test:plugin/tool through the module `jco transpile` made of
// a tool-plugin component and prints one line per call, "EXPR<TAB>RESULT", both in WAVE: EXPR as
// `kobako run --invoke` takes it, RESULT what node returned (a result's err case is thrown by jco
// with the value in e.payload). expected.txt is this script's output for goplugin.wasm and
// js.wasm alike but for name(); real_test.go compares kobako with it, and with node when present.
import { pathToFileURL } from "node:url";

const { tool } = await import(pathToFileURL(process.argv[2]).href);
const iface = "test:plugin/tool";
const str = (s) => '"' + s.replace(/[\\"'\t\n\r]/g, (c) => ({ "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c] ?? "\\" + c) + '"';

console.log(`${iface}#name()\t${str(tool.name())}`);
for (const arg of ["hi", "", "fail now", "log this", "kobako 小箱 é", 'quote" \\ tab\t']) {
  let out;
  try {
    out = `ok(${str(tool.execute(arg))})`;
  } catch (e) {
    if (!(e && "payload" in e)) throw e;
    out = `err(${str(e.payload)})`;
  }
  console.log(`${iface}#execute(${str(arg)})\t${out}`);
}
