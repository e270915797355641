;; The fuel counter the fuel-only benchmarks give kobako's rewritten modules: one mutable i64
;; global, set by the host before each call, as kobako's engine does with its own.
(module
  (global (export "remaining") (mut i64) (i64.const 0)))
