;; Refused: no memory export.
(module
  (func (export "_start"))
)
