;; Refused by Engine.Snapshot: copies within a table.
(module (table 2 funcref) (func (export "f") (table.copy (i32.const 0) (i32.const 1) (i32.const 1))))
