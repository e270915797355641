;; A call-free infinite loop: instrumented, it must trap with the fuel counter negative.
(module
  (func (export "spin")
    (loop $l (br $l))))
