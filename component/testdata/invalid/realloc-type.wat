;; expect: realloc (core func 0) has type
(component (core module $m (memory (export "m") 1) (func (export "r") (param i32) (result i32) (local.get 0))) (core instance $i (instantiate $m)) (import "f" (func $f (result string))) (core func (canon lower (func $f) (memory (core memory $i "m")) (realloc (core func $i "r")))))
