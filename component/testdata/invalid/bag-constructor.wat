;; expect: export name `[constructor]a` is not valid: the resource it uses has no name in this scope
;; An instance built from exports names no resource, not even one exported beside the
;; constructor: [constructor], [method] and [static] names are refused in it.
(component
  (type $T (resource (rep i32)))
  (core module $m (func (export "a") (result i32) unreachable))
  (core instance $i (instantiate $m))
  (func $f (result (own $T)) (canon lift (core func $i "a")))
  (instance
    (export "a" (type $T))
    (export "[constructor]a" (func $f))))
