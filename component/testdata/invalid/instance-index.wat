;; expect: instance index 0 out of range
(component (alias export 0 "x" (func)))
