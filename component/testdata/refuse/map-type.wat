;; Out of scope: the map type
(component (type (map string u32)))
