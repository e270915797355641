;; expect: contains a borrow handle
(component (import "r" (type $r (sub resource))) (type (func (result (borrow $r)))))
