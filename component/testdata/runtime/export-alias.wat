;; Runtime fixture: items aliased from the exports of component instances. An instance re-exported
;; by another ($fsvc) shares its state with the original; an instance nested in an instance
;; argument is aliased inside the importer; a component exported by an instance keeps the scope
;; it was defined in (each $C instance captured its own module import); a core module comes from
;; an instance export. Assembled by ../build.sh with `jco parse`.
(component
  (component $Svc
    (core module $M
      (global $g (mut i32) (i32.const 0))
      (func (export "bump") (result i32)
        (global.set $g (i32.add (global.get $g) (i32.const 1)))
        (global.get $g)))
    (core instance $m (instantiate $M))
    (func (export "bump") (result u32) (canon lift (core func $m "bump"))))
  (component $Fwd
    (import "svc" (instance $svc (export "bump" (func (result u32)))))
    (export "svc" (instance $svc)))
  (instance $svc (instantiate $Svc))
  (instance $fwd (instantiate $Fwd (with "svc" (instance $svc))))
  (alias export $fwd "svc" (instance $fsvc))
  (export "bump-direct" (func $svc "bump"))
  (export "bump-forwarded" (func $fsvc "bump"))

  (instance $outer (export "inner" (instance $svc)))
  (component $User
    (import "outer" (instance $o (export "inner" (instance (export "bump" (func (result u32)))))))
    (alias export $o "inner" (instance $inner))
    (export "bump" (func $inner "bump")))
  (instance $u (instantiate $User (with "outer" (instance $outer))))
  (export "bump-nested" (func $u "bump"))

  (component $C
    (import "m" (core module $M (export "get" (func (result i32)))))
    (component $Inner
      (core instance $m (instantiate $M))
      (func (export "get") (result u32) (canon lift (core func $m "get"))))
    (export "inner" (component $Inner))
    (export "m" (core module $M)))
  (core module $M1 (func (export "get") (result i32) (i32.const 1)))
  (core module $M2 (func (export "get") (result i32) (i32.const 2)))
  (instance $c1 (instantiate $C (with "m" (core module $M1))))
  (instance $c2 (instantiate $C (with "m" (core module $M2))))
  (alias export $c1 "inner" (component $I1))
  (alias export $c2 "inner" (component $I2))
  (instance $i1 (instantiate $I1))
  (instance $i2 (instantiate $I2))
  (export "get-one" (func $i1 "get"))
  (export "get-two" (func $i2 "get"))
  (alias export $c2 "m" (core module $m2))
  (core instance $m2i (instantiate $m2))
  (func (export "get-m-two") (result u32) (canon lift (core func $m2i "get"))))
