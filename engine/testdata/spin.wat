;; A call-free infinite loop: only fuel or the deadline can stop it.
(module
  (func (export "spin")
    (loop $l (br $l))))
