;; expect: flattens to
(component (core module $m (func (export "f") (param i32))) (core instance $i (instantiate $m)) (func (param "x" u64) (canon lift (core func $i "f"))))
