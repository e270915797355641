;; unknown_import.wat: a command importing a function WASI preview 1 does not have; linking fails.
(module
  (import "wasi_snapshot_preview1" "path_teleport" (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))
