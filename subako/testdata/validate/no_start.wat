;; Refused: no _start export.
(module
  (memory (export "memory") 1)
)
