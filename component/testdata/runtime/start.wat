;; Runtime fixture: component start functions. The root's start function runs at its place in
;; the definition order, before nested component $C is instantiated (whose own start function
;; then runs): the host sees log(3) from the core start function of $m, then log(2) from the
;; root's component start function, then log(1) from $C's. The root's start also spins for as many rounds
;; as the host's `spins` says, to show that it runs on the store's fuel. Assembled by
;; ../build.sh with `jco parse`.
(component
  (import "log" (func $log (param "n" u32)))
  (import "spins" (func $spins (result u32)))
  (component $C
    (import "log" (func $log (param "n" u32)))
    (core func $log_l (canon lower (func $log)))
    (core instance $host (export "log" (func $log_l)))
    (core module $m
      (import "host" "log" (func $log (param i32)))
      (func (export "init") (call $log (i32.const 1))))
    (core instance $i (instantiate $m (with "host" (instance $host))))
    (func $init (canon lift (core func $i "init")))
    (start $init))
  (core func $log_l (canon lower (func $log)))
  (core func $spins_l (canon lower (func $spins)))
  (core instance $host (export "log" (func $log_l)) (export "spins" (func $spins_l)))
  (core module $m
    (import "host" "log" (func $log (param i32)))
    (import "host" "spins" (func $spins (result i32)))
    (global $g (mut i32) (i32.const 0))
    (func (export "init")
      (local $n i32)
      (local.set $n (call $spins))
      (block $done
        (loop $again
          (br_if $done (i32.eqz (local.get $n)))
          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
          (br $again)))
      (global.set $g (i32.const 42))
      (call $log (i32.const 2)))
    (func (export "get") (result i32) (global.get $g))
    (func $core-start (call $log (i32.const 3)))
    (start $core-start))
  (core instance $i (instantiate $m (with "host" (instance $host))))
  (func $init (canon lift (core func $i "init")))
  (start $init)
  (instance $c (instantiate $C (with "log" (func $log))))
  (func (export "get") (result u32) (canon lift (core func $i "get")))
)
