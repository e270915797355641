;; Refused by Engine.Snapshot: imports a table.
(module (import "env" "t" (table 1 funcref)))
