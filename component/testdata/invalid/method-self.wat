;; expect: first parameter must be named `self`
(component (import "r" (type $r (sub resource))) (import "[method]r.m" (func (param "this" (borrow $r)))))
