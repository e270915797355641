;; Tries to import fib's unwrapped host-call export, which would skip the charge of fib's entry
;; block: the engine must refuse to link it.
(module
  (import "lib" "kobako:direct/fib" (func $fib (param i32) (result i32)))
  (func (export "run") (param i32) (result i32)
    (call $fib (local.get 0))))
