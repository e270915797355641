;; expect: is not a resource defined by this component
(component (import "r" (type $r (sub resource))) (core func (canon resource.new $r)))
