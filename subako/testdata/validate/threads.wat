;; Refused: shared memory and atomics (threads).
(module
  (memory (export "memory") 1 1 shared)
  (func (export "_start") (drop (i32.atomic.load (i32.const 0))))
)
