;; expect: core module imports "" "" twice
(component (core module (import "" "" (func)) (import "" "" (func))))
