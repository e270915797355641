;; bad_signature.wat: imports fd_write with the wrong type; CheckImports names it.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))
