;; Runtime fixture: a component aliased from the export of a component instance, then
;; instantiated. The runtime refuses components that come from instance exports. Assembled by
;; ../build.sh with `jco parse`.
(component
  (component $C
    (component $D
      (core module $m (func (export "f") (result i32) (i32.const 1)))
      (core instance $i (instantiate $m))
      (func (export "f") (result u32) (canon lift (core func $i "f"))))
    (export "d" (component $D)))
  (instance $c (instantiate $C))
  (alias export $c "d" (component $d))
  (instance $di (instantiate $d))
  (alias export $di "f" (func $f))
  (export "f" (func $f))
)
