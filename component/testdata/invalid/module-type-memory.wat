;; expect: memory size must be at most 65536 pages
(component (core type (module (import "" "" (memory 70000)))))
