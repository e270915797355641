;; expect: post-return (core func 1) has type
(component (core module $m (func (export "f") (result i32) (i32.const 0)) (func (export "p"))) (core instance $i (instantiate $m)) (func (result u32) (canon lift (core func $i "f") (post-return (core func $i "p")))))
