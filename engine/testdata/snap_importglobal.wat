;; Refused by Engine.Snapshot: imports a global.
(module (import "env" "g" (global i32)))
