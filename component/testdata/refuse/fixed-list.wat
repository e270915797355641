;; Out of scope: fixed-length lists
(component (type (list u8 4)))
