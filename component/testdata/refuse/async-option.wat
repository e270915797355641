;; Out of scope: the async canonical option
(component (import "f" (func $f)) (core func (canon lower (func $f) async)))
