;; Refused by Engine.Snapshot: exports a name with the prefix snapshot capture reserves.
(module (memory (export "kobako:snapshot/memory/0") 1))
