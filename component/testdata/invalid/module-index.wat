;; expect: core module index 0 out of range
(component (core instance (instantiate 0)))
