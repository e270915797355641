;; expect: value 0 is never used
(component
  (core module $m (func (export "f") (result i32) (i32.const 1)))
  (core instance $i (instantiate $m))
  (func $f (result u32) (canon lift (core func $i "f")))
  (start $f (result (value $v))))
