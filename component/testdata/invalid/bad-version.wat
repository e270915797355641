;; expect: not a valid extern name
(component (import "a:b/c@1.0" (func)))
