;; expect: expected `func(v: u32)`, found `func(v: string)`
(component (component $c (import "x" (func (param "v" u32)))) (import "f" (func $f (param "v" string))) (instance (instantiate $c (with "x" (func $f)))))
