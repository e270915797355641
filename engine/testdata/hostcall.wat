;; Imports a host function that may block or fail, and proc_exit-style exits.
(module
  (import "host" "block" (func $block))
  (import "host" "fail" (func $fail))
  (import "host" "exit" (func $exit (param i32)))
  (func (export "block") (call $block))
  (func (export "fail") (call $fail))
  (func (export "exit") (param i32) (call $exit (local.get 0))))
