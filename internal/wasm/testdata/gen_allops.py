#!/usr/bin/env python3
"""Writes allops.wat: one exported function per instruction of WebAssembly 2.0 (numeric, memory,
SIMD, bulk memory, reference types, saturating truncation, sign extension). Each export is named
after the instruction it holds, so decoder tests can check the opcode table against wabt."""

I = ["i32", "i64"]
F = ["f32", "f64"]
funcs = []  # (export name, params, results, body)

def op(name, params, results, body=None):
    if body is None:
        body = " ".join(f"local.get {i}" for i in range(len(params))) + " " + name
    funcs.append((name, params, results, body))

for t in I:
    op(f"{t}.eqz", [t], ["i32"])
    for c in ["eq", "ne", "lt_s", "lt_u", "gt_s", "gt_u", "le_s", "le_u", "ge_s", "ge_u"]:
        op(f"{t}.{c}", [t, t], ["i32"])
    for c in ["clz", "ctz", "popcnt"]:
        op(f"{t}.{c}", [t], [t])
    for c in ["add", "sub", "mul", "div_s", "div_u", "rem_s", "rem_u", "and", "or", "xor", "shl",
              "shr_s", "shr_u", "rotl", "rotr"]:
        op(f"{t}.{c}", [t, t], [t])
for t in F:
    for c in ["eq", "ne", "lt", "gt", "le", "ge"]:
        op(f"{t}.{c}", [t, t], ["i32"])
    for c in ["abs", "neg", "ceil", "floor", "trunc", "nearest", "sqrt"]:
        op(f"{t}.{c}", [t], [t])
    for c in ["add", "sub", "mul", "div", "min", "max", "copysign"]:
        op(f"{t}.{c}", [t, t], [t])
conv = ["i32.wrap_i64", "i32.trunc_f32_s", "i32.trunc_f32_u", "i32.trunc_f64_s", "i32.trunc_f64_u",
        "i64.extend_i32_s", "i64.extend_i32_u", "i64.trunc_f32_s", "i64.trunc_f32_u", "i64.trunc_f64_s",
        "i64.trunc_f64_u", "f32.convert_i32_s", "f32.convert_i32_u", "f32.convert_i64_s",
        "f32.convert_i64_u", "f32.demote_f64", "f64.convert_i32_s", "f64.convert_i32_u",
        "f64.convert_i64_s", "f64.convert_i64_u", "f64.promote_f32", "i32.reinterpret_f32",
        "i64.reinterpret_f64", "f32.reinterpret_i32", "f64.reinterpret_i64",
        "i32.trunc_sat_f32_s", "i32.trunc_sat_f32_u", "i32.trunc_sat_f64_s", "i32.trunc_sat_f64_u",
        "i64.trunc_sat_f32_s", "i64.trunc_sat_f32_u", "i64.trunc_sat_f64_s", "i64.trunc_sat_f64_u"]
for c in conv:
    dst, rest = c.split(".")
    src = rest.split("_")[-1] if rest.split("_")[-1] in ("i32", "i64", "f32", "f64") else rest.split("_")[-2]
    op(c, [src], [dst])
for c in ["i32.extend8_s", "i32.extend16_s"]:
    op(c, ["i32"], ["i32"])
for c in ["i64.extend8_s", "i64.extend16_s", "i64.extend32_s"]:
    op(c, ["i64"], ["i64"])

loads = {"i32.load": "i32", "i64.load": "i64", "f32.load": "f32", "f64.load": "f64",
         "i32.load8_s": "i32", "i32.load8_u": "i32", "i32.load16_s": "i32", "i32.load16_u": "i32",
         "i64.load8_s": "i64", "i64.load8_u": "i64", "i64.load16_s": "i64", "i64.load16_u": "i64",
         "i64.load32_s": "i64", "i64.load32_u": "i64"}
for n, t in loads.items():
    op(n, ["i32"], [t], f"local.get 0 {n} offset=4")
stores = {"i32.store": "i32", "i64.store": "i64", "f32.store": "f32", "f64.store": "f64",
          "i32.store8": "i32", "i32.store16": "i32", "i64.store8": "i64", "i64.store16": "i64",
          "i64.store32": "i64"}
for n, t in stores.items():
    op(n, ["i32", t], [], f"local.get 0 local.get 1 {n} offset=8 align=1")
op("memory.size", [], ["i32"])
op("memory.grow", ["i32"], ["i32"])
op("i32.const", [], ["i32"], "i32.const -123456")
op("i64.const", [], ["i64"], "i64.const -1234567890123")
op("f32.const", [], ["f32"], "f32.const 1.5")
op("f64.const", [], ["f64"], "f64.const -2.25")
op("select", ["i32", "i32", "i32"], ["i32"])
op("select_t", ["v128", "v128", "i32"], ["v128"], "local.get 0 local.get 1 local.get 2 select (result v128)")
op("local.tee", ["i32"], ["i32"], "local.get 0 local.tee 0")
op("memory.init", ["i32", "i32", "i32"], [], "local.get 0 local.get 1 local.get 2 memory.init 0")
op("data.drop", [], [], "data.drop 0")
op("memory.copy", ["i32", "i32", "i32"], [])
op("memory.fill", ["i32", "i32", "i32"], [])
op("table.init", ["i32", "i32", "i32"], [], "local.get 0 local.get 1 local.get 2 table.init 0")
op("elem.drop", [], [], "elem.drop 0")
op("table.copy", ["i32", "i32", "i32"], [], "local.get 0 local.get 1 local.get 2 table.copy 0 0")
op("table.grow", ["funcref", "i32"], ["i32"], "local.get 0 local.get 1 table.grow 0")
op("table.size", [], ["i32"], "table.size 0")
op("table.fill", ["i32", "funcref", "i32"], [], "local.get 0 local.get 1 local.get 2 table.fill 0")
op("table.get", ["i32"], ["funcref"], "local.get 0 table.get 0")
op("table.set", ["i32", "funcref"], [], "local.get 0 local.get 1 table.set 0")
op("ref.null", [], ["externref"], "ref.null extern")
op("ref.is_null", ["funcref"], ["i32"])
op("ref.func", [], ["funcref"], "ref.func 0")

def scalar(shape):
    return {"i8x16": "i32", "i16x8": "i32", "i32x4": "i32", "i64x2": "i64", "f32x4": "f32",
            "f64x2": "f64"}[shape]

names = [l.strip() for l in open("simd_names.txt") if l.strip() and not l.startswith("#")]
unary_words = ["not", "abs", "neg", "popcnt", "sqrt", "ceil", "floor", "nearest", "extend_",
               "convert", "demote", "promote", "extadd_pairwise", "trunc_sat"]
for n in names:
    shape, rest = n.split(".")
    if n == "v128.const":
        op(n, [], ["v128"], "v128.const i32x4 1 2 3 4")
    elif n == "i8x16.shuffle":
        op(n, ["v128", "v128"], ["v128"], "local.get 0 local.get 1 i8x16.shuffle 0 17 2 19 4 21 6 23 8 25 10 27 12 29 14 31")
    elif "_lane" in rest and ("load" in rest or "store" in rest):
        res = ["v128"] if "load" in rest else []
        op(n, ["i32", "v128"], res, f"local.get 0 local.get 1 {n} offset=16 1")
    elif rest.startswith("load"):
        op(n, ["i32"], ["v128"], f"local.get 0 {n} offset=32")
    elif rest == "store":
        op(n, ["i32", "v128"], [], f"local.get 0 local.get 1 {n} offset=48")
    elif rest == "splat":
        op(n, [scalar(shape)], ["v128"])
    elif rest.startswith("extract_lane"):
        op(n, ["v128"], [scalar(shape)], f"local.get 0 {n} 1")
    elif rest == "replace_lane":
        op(n, ["v128", scalar(shape)], ["v128"], f"local.get 0 local.get 1 {n} 1")
    elif rest in ("any_true", "all_true", "bitmask"):
        op(n, ["v128"], ["i32"])
    elif rest == "bitselect":
        op(n, ["v128", "v128", "v128"], ["v128"])
    elif rest in ("shl", "shr_s", "shr_u"):
        op(n, ["v128", "i32"], ["v128"])
    elif any(rest.startswith(w) for w in unary_words) or rest == "trunc":
        op(n, ["v128"], ["v128"])
    else:
        op(n, ["v128", "v128"], ["v128"])

out = [";; Generated by gen_allops.py; do not edit.", "(module",
       "  (memory 1)", "  (table 4 funcref)", "  (elem func 0)", "  (data \"0123456789\")",
       "  (func $first)"]
for name, params, results, body in funcs:
    p = " ".join(f"(param {t})" for t in params)
    r = " ".join(f"(result {t})" for t in results)
    out.append(f"  (func (export \"{name}\") {p} {r} {body})")
out.append(")")
open("allops.wat", "w").write("\n".join(out) + "\n")
