;; Refused by Engine.Snapshot: imports a memory.
(module (import "env" "m" (memory 1)))
