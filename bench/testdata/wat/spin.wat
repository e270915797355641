;; A call-free infinite loop: only fuel or the deadline can stop it. BenchmarkDeadline measures
;; how long after its deadline each engine stops it.
(module
  (func (export "spin")
    (loop $l (br $l))))
