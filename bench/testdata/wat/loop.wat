;; A tight loop with no calls: n rounds of the xorshift/multiply mix that the Go guest's "loop"
;; export runs, so both compute the same value. The worst case for the fuel charge on every
;; loop iteration, since each iteration is one short basic block.
(module
  (func (export "loop") (param $n i32) (result i64)
    (local $i i32) (local $x i64)
    (local.set $x (i64.const 0x9e3779b97f4a7c15))
    (block $done
      (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
      (loop $next
        (local.set $x (i64.xor (local.get $x) (i64.shl (local.get $x) (i64.const 13))))
        (local.set $x (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 7))))
        (local.set $x (i64.xor (local.get $x) (i64.shl (local.get $x) (i64.const 17))))
        (local.set $x (i64.add (local.get $x)
          (i64.mul (i64.extend_i32_u (local.get $i)) (i64.const 0x2545f4914f6cdd1d))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $next (i32.lt_s (local.get $i) (local.get $n)))))
    (local.get $x)))
