;; Refused: imports from a module the host does not provide.
(module
  (import "env" "helper" (func))
  (memory (export "memory") 1) (func (export "_start"))
)
