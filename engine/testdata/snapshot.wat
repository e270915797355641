;; State in every place a snapshot restores: a start function and an init export that fill memory
;; (growing it), set mutable globals of every number type and read a host import; exports that
;; read and change that state, use the passive and the (dropped) active data segment, and call
;; through a table filled by an element segment. engine's snapshot tests run it both normally and
;; from a snapshot and compare.
(module
  (import "env" "seed" (func $seed (result i32)))
  (type $un (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (global $counter (mut i32) (i32.const 0))
  (global $acc (mut i64) (i64.const 0))
  (global $f (mut f32) (f32.const 0))
  (global $d (mut f64) (f64.const 0))
  (global $base i32 (i32.const 1024))
  (table 4 funcref)
  (elem (i32.const 0) $double $square $negate)
  (data (i32.const 16) "hello, snapshot")
  (data $p "passive segment")
  (func $double (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func $square (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
  (func $negate (param i32) (result i32) (i32.sub (i32.const 0) (local.get 0)))
  (func $start
    (local $i i32)
    (global.set $counter (call $seed))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (i32.const 4096)))
        (i32.store8 (i32.add (global.get $base) (local.get $i)) (i32.add (local.get $i) (global.get $counter)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (drop (memory.grow (i32.const 1)))
    (i32.store (i32.const 70000) (i32.const 0xdeadbeef))
    (global.set $f (f32.const 1.5)))
  (start $start)
  (func (export "_initialize")
    (local $i i32)
    ;; costs more than the start function, so that a fuel limit can fall between the two
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (i32.const 8192)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (global.set $acc (i64.const -5))
    (global.set $d (f64.const -0.25))
    (i64.store (i32.const 100000) (i64.const 0x0102030405060708)))
  (func (export "add") (param i32) (result i64)
    (global.set $counter (i32.add (global.get $counter) (local.get 0)))
    (global.set $acc (i64.add (global.get $acc) (i64.extend_i32_s (local.get 0))))
    (i32.store (i32.add (global.get $base) (i32.and (local.get 0) (i32.const 0xfff))) (global.get $counter))
    (global.get $acc))
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
  (func (export "size") (result i32) (memory.size))
  (func (export "init_passive") (param i32) (memory.init $p (local.get 0) (i32.const 0) (i32.const 15)))
  (func (export "init_active") (param i32) (memory.init 0 (local.get 0) (i32.const 0) (i32.const 1)))
  (func (export "indirect") (param i32 i32) (result i32)
    (call_indirect (type $un) (local.get 1) (local.get 0)))
  (func (export "floats") (param i32) (result f64)
    (global.set $f (f32.add (global.get $f) (f32.convert_i32_s (local.get 0))))
    (global.set $d (f64.add (global.get $d) (f64.promote_f32 (global.get $f))))
    (global.get $d))
  (func (export "sum") (param i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (i32.and (local.get 0) (i32.const 0x1fff))))
        (local.set $s (i32.add (local.get $s) (i32.load8_u (i32.add (global.get $base) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
  (func (export "seed") (result i32) (call $seed))
  (func (export "counter") (result i32) (global.get $counter)))
