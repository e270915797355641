;; Out of scope: 64-bit resource representations
(component (type (resource (rep i64))))
