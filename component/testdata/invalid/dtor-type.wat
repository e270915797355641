;; expect: resource destructor (core func 0) has type
(component (core module $m (func (export "d") (param i32) (result i32) (local.get 0))) (core instance $i (instantiate $m)) (type (resource (rep i32) (dtor (core func $i "d")))))
