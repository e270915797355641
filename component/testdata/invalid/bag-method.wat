;; expect: export name `[method]a.m` is not valid: the resource it uses has no name in this scope
;; The [method] form of bag-constructor.wat.
(component
  (type $T (resource (rep i32)))
  (core module $m (func (export "a") (param i32)))
  (core instance $i (instantiate $m))
  (func $f (param "self" (borrow $T)) (canon lift (core func $i "a")))
  (instance
    (export "a" (type $T))
    (export "[method]a.m" (func $f))))
