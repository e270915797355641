// node patch.mjs IN.wasm OUT.wasm : gives a Go (GOOS=wasip1) core module a `cabi_realloc_adapter`
// export.
//
// The WASI preview 1 adapter that wit-component links in needs memory of its own. It takes it from
// `cabi_realloc_adapter` if the module exports one (wasm-tools PR #989), else from `cabi_realloc`
// (in Go, re-entering the runtime from inside a WASI call aborts with "badsystemstack"), else with
// memory.grow (Go's sbrk assumes it owns every page past its heap and later overwrites the
// adapter's). The added function is a bump allocator over the Go array `adapterArena` (arena.go),
// whose address is found by its 16-byte marker in the data section. Uses wabt's wasm2wat and
// wat2wasm; the output is a function of the input only.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MARKER = Buffer.from([0xa5, 0x5a, ...Buffer.from("SUBAKO-ARENA"), 0x5a, 0xa5]);
const ARENA = 256 << 10; // the Go array's size

function fail(msg) {
  console.error("patch.mjs: " + msg);
  process.exit(1);
}

// leb reads a LEB128 number at b[i]; returns [value, next index].
function leb(b, i, signed = false) {
  let v = 0n, shift = 0n, x;
  do {
    if (i >= b.length) fail("truncated LEB128 number");
    x = b[i++];
    v |= BigInt(x & 0x7f) << shift;
    shift += 7n;
  } while (x & 0x80);
  if (signed && x & 0x40) v -= 1n << shift;
  return [Number(v), i];
}

// arenaAddress is the linear-memory address of the marker, from the active data segments.
function arenaAddress(w) {
  if (!w.subarray(0, 8).equals(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))) fail("not a core wasm module");
  for (let i = 8; i < w.length;) {
    const id = w[i];
    const [size, body] = leb(w, i + 1);
    if (id === 11) {
      let [count, k] = leb(w, body);
      for (; count > 0; count--) {
        let flags, offset = null, n;
        [flags, k] = leb(w, k);
        if (flags === 2) [, k] = leb(w, k); // memory index
        if (flags === 0 || flags === 2) {
          if (w[k] !== 0x41) fail("data segment offset is not an i32.const");
          [offset, k] = leb(w, k + 1, true);
          if (w[k++] !== 0x0b) fail("data segment offset expression is longer than i32.const");
        }
        [n, k] = leb(w, k);
        const at = w.subarray(k, k + n).indexOf(MARKER);
        if (at >= 0 && offset !== null) return offset + at;
        k += n;
      }
    }
    i = body + size;
  }
  fail("arena marker not found: the Go program must declare adapterArena (arena.go)");
}

const [src, dst] = process.argv.slice(2);
if (!dst) fail("usage: node patch.mjs IN.wasm OUT.wasm");
const base = arenaAddress(readFileSync(src));
const lo = (base + MARKER.length + 15) & ~15, hi = base + ARENA;
// The adapter only allocates (old pointer 0) and never frees, so a bump pointer is enough. Any
// other use, or running out of arena, traps instead of writing past the array.
const func = `
  (global $adapter_next (mut i32) (i32.const ${lo}))
  (func $cabi_realloc_adapter (param $old i32) (param $old_size i32) (param $align i32) (param $size i32) (result i32)
    (local $p i32)
    (if (i32.ne (local.get $old) (i32.const 0)) (then unreachable))
    (local.set $p (i32.and (i32.add (global.get $adapter_next) (i32.sub (local.get $align) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get $align))))
    (if (i32.gt_u (local.get $size) (i32.sub (i32.const ${hi}) (local.get $p))) (then unreachable))
    (global.set $adapter_next (i32.add (local.get $p) (local.get $size)))
    (local.get $p))
  (export "cabi_realloc_adapter" (func $cabi_realloc_adapter))
`;
const dir = mkdtempSync(join(tmpdir(), "patch-"));
try {
  const wat = join(dir, "m.wat");
  execFileSync("wasm2wat", ["--no-debug-names", src, "-o", wat], { stdio: "inherit" });
  const text = readFileSync(wat, "utf8");
  if (text.includes("cabi_realloc_adapter")) fail("module already exports cabi_realloc_adapter");
  const end = text.trimEnd().lastIndexOf(")");
  writeFileSync(wat, text.slice(0, end) + func + ")\n");
  execFileSync("wat2wasm", [wat, "-o", dst], { stdio: "inherit" });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
