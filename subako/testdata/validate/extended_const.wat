;; Refused: extended constant expressions.
(module
  (memory (export "memory") 1)
  (global i32 (i32.add (i32.const 1) (i32.const 2)))
  (func (export "_start"))
)
