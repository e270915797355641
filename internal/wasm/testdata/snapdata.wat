;; A memory written by an active and a passive data segment, and no memory.init: RestoreState's
;; tests check that its segments go (nothing can read them) and the image's stay.
(module
  (memory 1)
  (data (i32.const 8) "abc")
  (data "passive")
  (func (export "f") (i32.store (i32.const 0) (i32.const 1))))
