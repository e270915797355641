;; expect: a constructor must return
(component (import "r" (type $r (sub resource))) (import "[constructor]r" (func (result u32))))
