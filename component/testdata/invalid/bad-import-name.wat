;; expect: not a valid extern name
(component (import "Foo-bar" (func)) (import "foo--bar" (func)))
