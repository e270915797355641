;; Imports the engine's reserved fuel global: must be refused, or a guest could refill itself.
(module (import "kobako:fuel" "remaining" (global (mut i64))))
