;; Runtime fixture: the same nested component instantiated twice, which the runtime refuses.
(component
  (component $A
    (core module $m (func (export "one") (result i32) (i32.const 1)))
    (core instance $i (instantiate $m))
    (func (export "one") (result u32) (canon lift (core func $i "one"))))
  (instance $a1 (instantiate $A))
  (instance $a2 (instantiate $A))
  (alias export $a2 "one" (func $one))
  (export "one" (func $one))
)
