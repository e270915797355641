;; expect: not itself imported or exported by name
(component (type $r (record (field "x" u32))) (import "f" (func (param "r" $r))))
