;; Refused by Engine.Snapshot: a shared memory.
(module (memory 1 1 shared))
