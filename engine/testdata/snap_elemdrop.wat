;; Refused by Engine.Snapshot: drops an element segment.
(module (func $g) (elem $e func $g) (func (export "f") (elem.drop $e)))
