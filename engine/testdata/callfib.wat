;; Calls fib in another core instance of the same store: both draw on one fuel budget.
(module
  (import "lib" "fib" (func $fib (param i32) (result i32)))
  (func (export "run") (param i32) (result i32)
    (call $fib (local.get 0))))
