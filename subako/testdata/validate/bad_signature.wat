;; Refused: imports subako_http.request with the wrong signature.
(module
  (import "subako_http" "request" (func (param i64 i32) (result i32)))
  (memory (export "memory") 1) (func (export "_start"))
)
