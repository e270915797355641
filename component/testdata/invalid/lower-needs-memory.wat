;; expect: needs the memory option
(component (import "f" (func $f (param "s" string))) (core func (canon lower (func $f))))
