;; A wasi:cli/run command whose run returns err: exit status 1.
(component
  (core module $m (func (export "run") (result i32) (i32.const 1)))
  (core instance $i (instantiate $m))
  (func $run (result (result)) (canon lift (core func $i "run")))
  (instance $runi (export "run" (func $run)))
  (export "wasi:cli/run@0.2.0" (instance $runi))
)
