;; expect: core func index 3 out of range
(component (type $f (func)) (func (type $f) (canon lift (core func 3))))
