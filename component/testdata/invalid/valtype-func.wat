;; expect: is a func type, not a value type
(component (type $f (func)) (type (list $f)))
