;; Refused: _start takes a parameter.
(module
  (memory (export "memory") 1)
  (func (export "_start") (param i32))
)
