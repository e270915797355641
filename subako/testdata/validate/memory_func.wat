;; Refused: the export named memory is a function, and no memory is exported.
(module
  (func (export "_start"))
  (func (export "memory"))
)
