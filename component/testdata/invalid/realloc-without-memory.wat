;; expect: realloc requires the memory option
(component (core module $m (func (export "r") (param i32 i32 i32 i32) (result i32) (i32.const 0))) (core instance $i (instantiate $m)) (import "f" (func $f)) (core func (canon lower (func $f) (realloc (core func $i "r")))))
