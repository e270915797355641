;; Refused: two memories.
(module
  (memory (export "memory") 1)
  (memory 1)
  (func (export "_start"))
)
