;; expect: start function `func() -> u32` has 1 results, start section says 0
(component
  (core module $m (func (export "f") (result i32) (i32.const 1)))
  (core instance $i (instantiate $m))
  (func $f (result u32) (canon lift (core func $i "f")))
  (start $f))
