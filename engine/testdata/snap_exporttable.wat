;; Refused by Engine.Snapshot: exports a table another instance could write.
(module (table (export "t") 1 funcref))
