;; Benchmark fixture (bench/component_bench_test.go), not part of the differential check: run(n)
;; calls the host import tick n times, feeding each result into the next call. Assembled by
;; build.sh with `jco parse`.
(component
  (import "kobako:bench/host" (instance $h
    (export "tick" (func (param "x" u32) (result u32)))))
  (alias export $h "tick" (func $tick))
  (core func $tick_l (canon lower (func $tick)))
  (core instance $host (export "tick" (func $tick_l)))
  (core module $m
    (import "host" "tick" (func $tick (param i32) (result i32)))
    (func (export "run") (param $n i32) (result i32)
      (local $acc i32)
      (block $done (loop $l
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $acc (call $tick (local.get $acc)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $l)))
      (local.get $acc)))
  (core instance $i (instantiate $m (with "host" (instance $host))))
  (func (export "run") (param "n" u32) (result u32) (canon lift (core func $i "run")))
)
