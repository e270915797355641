;; expect: missing argument for import `x`
(component (component $c (import "x" (func))) (instance (instantiate $c)))
