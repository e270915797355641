;; Runtime fixture: a root component that imports a core module. The linker defines functions,
;; interfaces and resources only, so the runtime refuses it. Assembled by ../build.sh with
;; `jco parse`.
(component
  (import "m" (core module $m (export "f" (func (result i32)))))
  (core instance $i (instantiate $m))
  (func (export "f") (result u32) (canon lift (core func $i "f")))
)
