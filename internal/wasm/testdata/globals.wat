;; Imported and defined globals, used in code, constant expressions and exports, plus element and
;; data segments in every encoding. Instrument shifts every defined global index by one.
(module
  (import "env" "base" (global $base i32))
  (import "env" "counter" (global $counter (mut i64)))
  (import "env" "f" (func $f (param i32) (result i32)))
  (global $g0 (mut i32) (global.get $base))
  (global $g1 i64 (i64.const 7))
  (global $g2 (mut i32) (i32.const 100))
  (global $fref funcref (ref.func $get))
  (global $eref (mut externref) (ref.null extern))
  (global $vec (mut v128) (v128.const i32x4 1 2 3 4))
  (export "g0" (global $g0))
  (export "g1" (global $g1))
  (export "g2" (global $g2))
  (export "base" (global $base))
  (memory (export "mem") 1)
  (table $t0 (export "t0") 10 funcref)
  (table $t1 4 20 funcref)
  (table $t2 3 externref)
  (type $un (func (param i32) (result i32)))

  ;; element segments, one per encoding (0..7)
  (elem (global.get $base) $get)                               ;; 0: active, table 0, func indices
  (elem func $get $bump)                                       ;; 1: passive, func indices
  (elem (table $t1) (global.get $base) func $bump)             ;; 2: active, explicit table
  (elem declare func $declared)                                ;; 3: declarative
  (elem (i32.const 5) funcref (ref.func $get) (ref.null func)) ;; 4: active, table 0, exprs
  (elem funcref (ref.func $bump) (ref.null func))              ;; 5: passive, exprs
  (elem (table $t2) (i32.const 0) externref (ref.null extern)) ;; 6: active, explicit table, exprs
  (elem declare funcref (ref.func $declared) (ref.null func))   ;; 7: declarative, exprs

  ;; data segments, one per encoding (0..2)
  (data (global.get $base) "abc")
  (data "passive")
  (data (memory 0) (i32.const 16) "xyz") ;; wat2wasm writes encoding 0; decode_test covers 2

  (func $get (export "get") (result i32)
    global.get $g2)
  (func $bump (export "bump") (param i32) (result i32)
    global.get $g2 local.get 0 i32.add global.set $g2
    global.get $g0 i32.const 1 i32.add global.set $g0
    global.get $counter i64.const 1 i64.add global.set $counter
    global.get $g2)
  (func $declared (result funcref) ref.func $declared)
  (func (export "sum") (result i64)
    global.get $g1
    global.get $g0 i64.extend_i32_u i64.add
    global.get $base i64.extend_i32_u i64.add
    global.get $counter i64.add
    global.get $vec i64x2.extract_lane 0 i64.add)
  (func (export "callf") (param i32) (result i32)
    local.get 0 call $f)
  (func (export "bulk") (result i32)
    i32.const 100 i32.const 0 i32.const 7 memory.init 1
    data.drop 1
    i32.const 1 i32.const 0 i32.const 2 table.init $t1 1
    elem.drop 1
    i32.const 200 i32.const 100 i32.const 7 memory.copy
    i32.const 300 i32.const 65 i32.const 4 memory.fill
    i32.const 200 i32.load8_u
    i32.const 2 call_indirect $t1 (type $un)
    i32.const 300 i32.load8_u i32.add)
  (func (export "viaelem") (result i32)
    i32.const 3 call_indirect $t0 (type $get))
  (type $get (func (result i32)))
)
