;; expect: export name `G` conflicts with `g`
(component (import "f" (func $f)) (export "g" (func $f)) (export "G" (func $f)))
