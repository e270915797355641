;; Every kind of function-index reference, for the fuel hook import: the hook takes the index of
;; the first defined function and moves every defined function up by one. Function imports sit
;; before and after a global import; the start function, element segments of every encoding,
;; ref.func in globals and in code, exports and call_indirect through the tables the segments fill
;; must all still reach the same functions. Function k of the table computes x+k (odd k) or x*k
;; (even k), so a call through a wrong index gives a wrong answer or a trap.
(module
  (type $un (func (param i32) (result i32)))
  (import "env" "f" (func $f1 (type $un)))
  (import "env" "base" (global $base i32))
  (import "env" "f" (func $f2 (type $un)))
  (table $t 16 funcref)
  (table $t2 4 funcref)
  (global $started (mut i32) (i32.const 0))
  (global $fref funcref (ref.func $seven))
  (global $fimp funcref (ref.func $f2))
  (global $fvar (mut funcref) (ref.null func))
  (export "started" (global $started))
  (export "f1" (func $f1))
  (export "one" (func $one))
  (export "plain" (func $plain))
  (export "plain2" (func $plain))

  (elem (i32.const 0) $one $two)                                              ;; 0: active, table 0, indices
  (elem $p1 func $three $four)                                                ;; 1: passive, indices
  (elem (table $t2) (i32.const 0) func $five $f1)                             ;; 2: active, explicit table, indices
  (elem declare func $ten $twelve)                                            ;; 3: declarative, indices
  (elem (i32.const 2) funcref (ref.func $six) (ref.null func) (ref.func $f2)) ;; 4: active, exprs
  (elem $p5 funcref (ref.func $eight) (ref.func $one))                        ;; 5: passive, exprs
  (elem (table $t2) (i32.const 2) funcref (ref.func $nine))                   ;; 6: active, explicit table, exprs
  (elem declare funcref (ref.func $eleven))                                   ;; 7: declarative, exprs

  (start $init)
  ;; Fills the rest of $t from the passive segments, the globals' ref.func and ref.func in code.
  (func $init (local $i i32)
    i32.const 5 i32.const 0 i32.const 2 table.init $t $p1
    i32.const 7 i32.const 0 i32.const 2 table.init $t $p5
    i32.const 10 global.get $fref table.set $t
    i32.const 11 ref.func $ten table.set $t
    i32.const 12 ref.func $eleven table.set $t
    i32.const 13 global.get $fimp table.set $t
    ref.func $twelve global.set $fvar
    i32.const 14 global.get $fvar table.set $t
    global.get $base i32.const 100 i32.add global.set $started)
  (func $one (type $un) (param $x i32) (result i32) local.get $x i32.const 1 i32.add)
  (func $two (type $un) (param $x i32) (result i32) local.get $x i32.const 2 i32.mul)
  (func $three (type $un) (param $x i32) (result i32) local.get $x i32.const 3 i32.add)
  (func $four (type $un) (param $x i32) (result i32) local.get $x i32.const 4 i32.mul)
  (func $five (type $un) (param $x i32) (result i32) local.get $x i32.const 5 i32.add)
  (func $six (type $un) (param $x i32) (result i32) local.get $x i32.const 6 i32.mul)
  (func $seven (type $un) (param $x i32) (result i32) local.get $x i32.const 7 i32.add)
  (func $eight (type $un) (param $x i32) (result i32) local.get $x i32.const 8 i32.mul)
  (func $nine (type $un) (param $x i32) (result i32) local.get $x i32.const 9 i32.add)
  (func $ten (type $un) (param $x i32) (result i32) local.get $x i32.const 10 i32.mul)
  (func $eleven (type $un) (param $x i32) (result i32) local.get $x i32.const 11 i32.add)
  (func $twelve (type $un) (param $x i32) (result i32) local.get $x i32.const 12 i32.mul)
  ;; Direct calls to defined and imported functions; exported twice, so one wrapper serves both.
  (func $plain (type $un) (param $x i32) (result i32)
    local.get $x call $one call $two call $f2 call $inner)
  (func $inner (param $y i32) (result i32) local.get $y i32.const 1000 i32.add)
  (func (export "via") (param $i i32) (param $x i32) (result i32)
    local.get $x local.get $i call_indirect $t (type $un))
  (func (export "via2") (param $i i32) (param $x i32) (result i32)
    local.get $x local.get $i call_indirect $t2 (type $un))
  ;; A trap two calls deep, for the names in the stack trace.
  (func (export "trap") (param $x i32) (result i32) local.get $x call $deep)
  (func $deep (param $x i32) (result i32) local.get $x call $deeper)
  (func $deeper (param $x i32) (result i32) unreachable)
)
