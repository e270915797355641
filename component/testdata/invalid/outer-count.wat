;; expect: outer alias count 2 exceeds
(component (component (alias outer 2 0 (type))))
