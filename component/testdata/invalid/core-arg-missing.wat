;; expect: missing argument
(component (core module $m (import "env" "f" (func))) (core instance (instantiate $m)))
