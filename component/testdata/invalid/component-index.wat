;; expect: component index 0 out of range
(component (instance (instantiate 0)))
