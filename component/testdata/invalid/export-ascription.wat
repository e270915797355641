;; expect: does not match the ascribed type
(component (import "f" (func $f (param "x" u32))) (export "g" (func $f) (func (param "x" u64))))
