;; Refused: exception handling.
(module
  (memory (export "memory") 1)
  (tag $e)
  (func (export "_start") (throw $e))
)
