;; expect: module types cannot alias module types
(component (core type $m (module)) (core type (module (alias outer 1 $m (type)))))
