;; expect: conflicts with
(component (type (record (field "a-b" u8) (field "A-B" u8))))
