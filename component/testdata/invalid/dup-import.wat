;; expect: conflicts with
(component (import "foo" (func)) (import "FOO" (func)))
