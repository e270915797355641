;; Refused by Engine.Snapshot: writes a table from a passive element segment.
(module (table 1 funcref) (func $g) (elem $e func $g) (func (export "f") (table.init $e (i32.const 0) (i32.const 0) (i32.const 1))))
