;; expect: core instance index 0 out of range
(component (alias core export 0 "x" (core func)))
