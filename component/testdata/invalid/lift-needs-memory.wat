;; expect: needs the memory option
(component (core module $m (func (export "f") (result i32))) (core instance $i (instantiate $m)) (func (result string) (canon lift (core func $i "f"))))
