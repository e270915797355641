;; Runtime fixture: a nested component $C that imports a core module and a component, which the
;; root passes as instantiation arguments, and instantiates both; its own nested component $D
;; outer-aliases those imports and instantiates them again. Every instantiation has its own
;; state. Assembled by ../build.sh with `jco parse`.
(component $root
  (core module $m
    (global $n (mut i32) (i32.const 0))
    (func (export "next") (result i32)
      (global.set $n (i32.add (global.get $n) (i32.const 1)))
      (global.get $n)))
  (component $Leaf
    (core module $lm
      (global $n (mut i32) (i32.const 100))
      (func (export "next") (result i32)
        (global.set $n (i32.add (global.get $n) (i32.const 1)))
        (global.get $n)))
    (core instance $i (instantiate $lm))
    (func (export "next") (result u32) (canon lift (core func $i "next"))))
  (component $C
    (import "m" (core module $im (export "next" (func (result i32)))))
    (import "leaf" (component $il (export "next" (func (result u32)))))
    (core instance $i (instantiate $im))
    (instance $l (instantiate $il))
    (component $D
      (alias outer $C $im (core module $om))
      (alias outer $C $il (component $ol))
      (core instance $i (instantiate $om))
      (instance $l (instantiate $ol))
      (func (export "next") (result u32) (canon lift (core func $i "next")))
      (alias export $l "next" (func $leaf-next))
      (export "leaf-next" (func $leaf-next)))
    (instance $d (instantiate $D))
    (func (export "next") (result u32) (canon lift (core func $i "next")))
    (alias export $l "next" (func $leaf-next))
    (alias export $d "next" (func $d-next))
    (alias export $d "leaf-next" (func $d-leaf-next))
    (export "leaf-next" (func $leaf-next))
    (export "d-next" (func $d-next))
    (export "d-leaf-next" (func $d-leaf-next)))
  (instance $c (instantiate $C (with "m" (core module $m)) (with "leaf" (component $Leaf))))
  (alias export $c "next" (func $c-next))
  (alias export $c "leaf-next" (func $c-leaf-next))
  (alias export $c "d-next" (func $d-next))
  (alias export $c "d-leaf-next" (func $d-leaf-next))
  (export "c-next" (func $c-next))
  (export "c-leaf-next" (func $c-leaf-next))
  (export "d-next" (func $d-next))
  (export "d-leaf-next" (func $d-leaf-next))
)
