;; Refused by Engine.Snapshot: grows a table.
(module (table 1 funcref) (func (export "f") (drop (table.grow 0 (ref.null func) (i32.const 1)))))
