;; Runtime fixture: core modules importing from the empty module name, as the component model's
;; reference tests do throughout, instantiated with (with "" ...): once with a core instance, once
;; with a bundle of exports. "run-1" is a label whose second word starts with a digit, for
;; `kobako run --invoke 'run-1(41)'`. Assembled by ../build.sh with `jco parse`.
(component
  (core module $A
    (func (export "add") (param i32 i32) (result i32)
      (i32.add (local.get 0) (local.get 1))))
  (core instance $a (instantiate $A))
  (core module $B
    (import "" "add" (func $add (param i32 i32) (result i32)))
    (func (export "inc") (param i32) (result i32)
      (call $add (local.get 0) (i32.const 1))))
  (core instance $b (instantiate $B (with "" (instance $a))))
  (core module $C
    (import "" "inc" (func $inc (param i32) (result i32)))
    (import "" "add" (func $add (param i32 i32) (result i32)))
    (func (export "run") (param i32) (result i32)
      (call $add (call $inc (local.get 0)) (i32.const 100))))
  (core instance $c (instantiate $C
    (with "" (instance (export "inc" (func $b "inc")) (export "add" (func $a "add"))))))
  (func $run (export "run") (param "x" u32) (result u32) (canon lift (core func $c "run")))
  (export "run-1" (func $run)))
