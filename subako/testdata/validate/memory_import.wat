;; Refused: imports a memory; the host provides only functions.
(module
  (import "wasi_snapshot_preview1" "memory" (memory 1))
  (func (export "_start"))
)
