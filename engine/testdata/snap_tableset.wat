;; Refused by Engine.Snapshot: writes a table.
(module (table 1 funcref) (func (export "f") (table.set 0 (i32.const 0) (ref.null func))))
