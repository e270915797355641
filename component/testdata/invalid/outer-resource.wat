;; expect: crosses a component boundary but refers to a resource type
(component (import "r" (type $r (sub resource))) (type $o (own $r)) (component (alias outer 1 $o (type))))
