;; expect: is a func, not a type
(component (import "i" (instance $i (export "a" (func)))) (alias export $i "a" (type)))
