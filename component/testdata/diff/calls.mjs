// node calls.mjs <dir>/diff.js : calls kobako:diff/api through the module `jco transpile` made of
// diff.wasm and prints one line per call, "EXPR<TAB>RESULT", both in WAVE: EXPR is the call as
// `kobako run --invoke` takes it, RESULT what the call returned (or "err(...)" for a result's error
// case, which jco throws, or "trap"). .ci/difftest runs every EXPR through kobako and compares;
// expected.txt is this script's output, which component/diff_test.go checks kobako against.
import { pathToFileURL } from "node:url";

const mod = await import(pathToFileURL(process.argv[2]).href);
const api = mod["kobako:diff/api@0.1.0"];
const iface = "kobako:diff/api@0.1.0";

// WIT types, as far as this interface needs them.
const list = (e) => ({ k: "list", e });
const tuple = (...es) => ({ k: "tuple", es });
const option = (e) => ({ k: "option", e });
const result = (ok, err) => ({ k: "result", ok, err });
const point = { k: "record", fields: ["x", "y"], types: ["s32", "s32"] };
const shape = { k: "variant", cases: { circle: "f32", rect: tuple("f32", "f32"), dot: null } };
const color = { k: "enum" };
const perms = { k: "flags", labels: ["read", "write", "exec"] };

const sigs = {
  add: [["u32", "u32"], "u32"],
  neg8: [["s8"], "s8"],
  prims: [["u8", "s16", "u64", "s64", "f32", "f64", "char", "bool"],
    tuple("u8", "s16", "u64", "s64", "f32", "f64", "char", "bool")],
  concat: [["string", "string"], "string"],
  sum: [[list("u32")], "u64"],
  range: [["u32"], list("u32")],
  "total-len": [[list("string")], "u32"],
  swap: [[point], point],
  "echo-points": [[list(point)], list(point)],
  "echo-shape": [[shape], shape],
  "next-color": [[color], color],
  toggle: [[perms], perms],
  "inc-opt": [[option("u32")], option("u32")],
  "echo-opt-str": [[option("string")], option("string")],
  "checked-div": [["u32", "u32"], result("u32", "string")],
  "echo-result": [[result(list("u8"), color)], result(list("u8"), color)],
  "swap-pair": [[tuple("string", "u32")], tuple("u32", "string")],
  many: [Array(17).fill("u32"), "u32"],
  boom: [["u32"], "u32"],
};

const seq = (n) => Array.from({ length: n }, (_, i) => i + 1);
const calls = [
  ["add", 1, 2],
  ["add", 4294967295, 2],
  ["neg8", 5],
  // neg8(-128) is left out: the core result 128 must wrap to -128 (CanonicalABI.md,
  // lift_flat_signed), which kobako does, but jco 1.35 throws "must be between -128 and 127".
  ["neg8", 127],
  ["prims", 255, -32768, 18446744073709551615n, -9223372036854775808n, 1.5, -2.25, "☃", true],
  ["prims", 0, 32767, 0n, 9223372036854775807n, -0, 0.5, "a", false],
  ["prims", 7, -1, 12345678901234n, -1n, 3.75, 1e-7, "😀", true],
  ["concat", "", ""],
  ["concat", "kobako ", "小箱"],
  ["concat", "tab\there", "quote\" 'and' back\\slash\n"],
  ["concat", "é", "🎉 emoji"],
  ["sum", new Uint32Array([])],
  ["sum", new Uint32Array([1, 2, 3, 4294967295, 4294967295])],
  ["range", 0],
  ["range", 5],
  ["total-len", []],
  ["total-len", ["a", "bc", "小箱", ""]],
  ["swap", { x: 1, y: -2 }],
  ["swap", { x: -2147483648, y: 2147483647 }],
  ["echo-points", []],
  ["echo-points", [{ x: 1, y: 2 }, { x: -3, y: 4 }, { x: 0, y: 0 }]],
  ["echo-shape", { tag: "circle", val: 2.5 }],
  ["echo-shape", { tag: "rect", val: [1.25, -8] }],
  ["echo-shape", { tag: "dot" }],
  ["next-color", "red"],
  ["next-color", "blue"],
  ["toggle", {}],
  ["toggle", { read: true, write: true }],
  ["toggle", { read: true, write: true, exec: true }],
  ["inc-opt", undefined],
  ["inc-opt", 41],
  ["inc-opt", 4294967295],
  ["echo-opt-str", undefined],
  ["echo-opt-str", "some string"],
  ["echo-opt-str", ""],
  ["checked-div", 7, 2],
  ["checked-div", 7, 0],
  ["echo-result", { tag: "ok", val: new Uint8Array([0, 1, 255]) }],
  ["echo-result", { tag: "ok", val: new Uint8Array([]) }],
  ["echo-result", { tag: "err", val: "green" }],
  ["swap-pair", ["left", 9]],
  ["many", ...seq(17)],
  ["many", ...Array(17).fill(4294967295)],
  ["boom", 4],
  ["boom", 0],
];

const camel = (s) => s.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());

// The WAVE text of v as a value of type t, as abi/wave prints it.
function wave(t, v) {
  if (typeof t === "string") {
    switch (t) {
      case "bool": return v ? "true" : "false";
      case "f32": case "f64": return float(v);
      case "char": return "'" + chars(v) + "'";
      case "string": return '"' + chars(v) + '"';
      default: return String(v);
    }
  }
  switch (t.k) {
    case "list": return "[" + Array.from(v, (x) => wave(t.e, x)).join(", ") + "]";
    case "tuple": return "(" + t.es.map((et, i) => wave(et, v[i])).join(", ") + ")";
    case "record": return "{" + t.fields.map((f, i) => f + ": " + wave(t.types[i], v[camel(f)])).join(", ") + "}";
    case "variant": {
      const pt = t.cases[v.tag];
      return v.tag + (pt === null ? "" : "(" + wave(pt, v.val) + ")");
    }
    case "enum": return v;
    case "flags": return "{" + t.labels.filter((l) => v[camel(l)]).join(", ") + "}";
    case "option": return v === undefined || v === null ? "none" : "some(" + wave(t.e, v) + ")";
    case "result": {
      const pt = v.tag === "ok" ? t.ok : t.err;
      return v.tag + (pt === null ? "" : "(" + wave(pt, v.val) + ")");
    }
  }
  throw new Error("no WAVE form for " + JSON.stringify(t));
}

// Shortest round-trip decimal without an exponent, like Go's strconv.FormatFloat(f, 'f', -1, 64).
// (f32 results are widened by jco, so the fixture only uses f32 values whose f64 form is short.)
function float(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Object.is(x, -0)) return "-0";
  let s = String(x);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m) {
    const [, sign, d, frac = "", e] = m;
    const exp = Number(e);
    const digits = d + frac;
    if (exp < 0) s = sign + "0." + "0".repeat(-exp - 1) + digits;
    else s = sign + digits + "0".repeat(Math.max(0, exp - frac.length));
  }
  return s;
}

function chars(s) {
  let out = "";
  for (const c of s) {
    if (c === "\\" || c === '"' || c === "'") out += "\\" + c;
    else if (c === "\t") out += "\\t";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === " " || /[\p{L}\p{Mc}\p{Me}\p{N}\p{P}\p{S}]/u.test(c)) out += c;
    else out += "\\u{" + c.codePointAt(0).toString(16) + "}";
  }
  return out;
}

for (const [name, ...args] of calls) {
  const [params, res] = sigs[name];
  const expr = iface + "#" + name + "(" + args.map((a, i) => wave(params[i], a)).join(", ") + ")";
  let out;
  try {
    const v = api[camel(name)](...args);
    out = res.k === "result" ? wave(res, { tag: "ok", val: v }) : wave(res, v);
  } catch (e) {
    if (res.k === "result" && e && "payload" in e) out = wave(res, { tag: "err", val: e.payload });
    else if (e instanceof WebAssembly.RuntimeError) out = "trap";
    else throw e;
  }
  console.log(expr + "\t" + out);
}
