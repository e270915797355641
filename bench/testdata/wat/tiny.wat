;; The smallest useful command module: a memory, a data segment and a _start that does a little
;; work (sums the segment's bytes into a global), for the instantiate-and-run benchmark.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "hello, world\n")
  (global $sum (export "sum") (mut i32) (i32.const 0))
  (func (export "_start")
    (local $i i32)
    (loop $next
      (global.set $sum (i32.add (global.get $sum) (i32.load8_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (i32.const 13))))))
