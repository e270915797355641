;; expect: type index 0 out of range
(component (component (alias outer 1 0 (type))))
