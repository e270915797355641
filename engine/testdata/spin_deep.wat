;; A loop that the called export does not run itself: "run" calls $outer, which calls $spin, all in
;; this instance. Imported by spin_caller, it spins in a core instance other than the one a call
;; entered, two calls down, where only an interruption of every instance of the store reaches it.
(module
  (func $spin (loop $l (br $l)))
  (func $outer (call $spin))
  (func (export "run") (call $outer)))
