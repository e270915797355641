;; Runtime fixture: "r2" exports the resource $r with the ascription (sub resource), which makes a
;; new abstract type for the validator (invalid/ascribe-fresh.wat) that is $r at run time: a
;; function lifted with own<$r2> returns handles of the resource "r1" names. Assembled by
;; ../build.sh with `jco parse`.
(component
  (type $r (resource (rep i32)))
  (core func $new (canon resource.new $r))
  (core module $M
    (import "" "new" (func $new (param i32) (result i32)))
    (func (export "make") (param i32) (result i32) (call $new (local.get 0))))
  (core instance $m (instantiate $M (with "" (instance (export "new" (func $new))))))
  (export "r1" (type $r))
  (export $r2 "r2" (type $r) (type (sub resource)))
  (func $make (param "rep" u32) (result (own $r2)) (canon lift (core func $m "make")))
  (export "make" (func $make)))
