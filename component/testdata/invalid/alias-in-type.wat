;; expect: outer aliases in component and instance types may only refer to types
(component (type (instance (alias outer 1 0 (core module)))))
