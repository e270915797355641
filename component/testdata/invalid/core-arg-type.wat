;; expect: expected `func [] -> []`, found `func [i32] -> []`
(component (core module $a (func (export "f") (param i32))) (core module $m (import "env" "f" (func))) (core instance $ai (instantiate $a)) (core instance (instantiate $m (with "env" (instance $ai)))))
