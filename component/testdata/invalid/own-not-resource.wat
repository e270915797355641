;; expect: is a value type, not a resource type
(component (type $l (list u8)) (type (own $l)))
