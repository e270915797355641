;; Refused: a 64-bit memory.
(module
  (memory (export "memory") i64 1)
  (func (export "_start"))
)
