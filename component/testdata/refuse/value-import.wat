;; Out of scope: value imports (values)
(component (import "v" (value u32)))
