;; expect: func index 0 out of range
(component (core func (canon lower (func 0))))
