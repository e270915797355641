;; expect: cannot be defined inside component or instance types
(component (type (instance (type (resource (rep i32))))))
