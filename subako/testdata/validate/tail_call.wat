;; Refused: tail calls.
(module
  (memory (export "memory") 1)
  (func $f)
  (func (export "_start") (return_call $f))
)
