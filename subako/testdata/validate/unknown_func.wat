;; Refused: imports a wasi_snapshot_preview1 function that does not exist.
(module
  (import "wasi_snapshot_preview1" "sock_open" (func (param i32) (result i32)))
  (memory (export "memory") 1) (func (export "_start"))
)
