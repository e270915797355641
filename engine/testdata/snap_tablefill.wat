;; Refused by Engine.Snapshot: fills a table.
(module (table 1 funcref) (func (export "f") (table.fill 0 (i32.const 0) (ref.null func) (i32.const 1))))
