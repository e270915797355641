;; expect: core module imports "" "a" twice
(component (core type (module (import "" "a" (func)) (import "" "a" (func)))))
