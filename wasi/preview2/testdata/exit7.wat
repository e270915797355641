;; A wasi:cli/run command that ends with wasi:cli/exit's exit-with-code(7): the run's exit status.
(component
  (import "wasi:cli/exit@0.2.0" (instance $exit
    (export "exit-with-code" (func (param "status-code" u8)))))
  (alias export $exit "exit-with-code" (func $ec))
  (core func $ec_l (canon lower (func $ec)))
  (core instance $wasi (export "exit-with-code" (func $ec_l)))
  (core module $m
    (import "wasi" "exit-with-code" (func $ec (param i32)))
    (func (export "run") (result i32) (call $ec (i32.const 7)) (unreachable)))
  (core instance $i (instantiate $m (with "wasi" (instance $wasi))))
  (func $run (result (result)) (canon lift (core func $i "run")))
  (instance $runi (export "run" (func $run)))
  (export "wasi:cli/run@0.2.3" (instance $runi))
)
