;; expect: given twice
(component (import "f" (func $f)) (core func (canon lower (func $f) string-encoding=utf8 string-encoding=utf16)))
