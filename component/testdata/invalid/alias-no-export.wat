;; expect: has no export named
(component (import "i" (instance $i (export "a" (func)))) (alias export $i "b" (func)))
