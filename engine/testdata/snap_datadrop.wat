;; Refused by Engine.Snapshot: drops a data segment.
(module (memory 1) (data $d "x") (func (export "f") (data.drop $d)))
