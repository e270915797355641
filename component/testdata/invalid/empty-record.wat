;; expect: record type has no fields
(component (type (record)))
