;; Refused by Engine.Snapshot: a mutable reference global cannot be captured.
(module (global (mut funcref) (ref.null func)))
