;; expect: type index 5 out of range
(component (type (list 5)))
