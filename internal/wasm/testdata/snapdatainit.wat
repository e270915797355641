;; snapdata.wat with a memory.init: RestoreState's tests check that its segments stay, as
;; passive ones, ahead of the image's.
(module
  (memory 1)
  (data (i32.const 8) "abc")
  (data "passive")
  (func (export "f") (i32.store (i32.const 0) (i32.const 1)))
  (func (export "g") (memory.init 1 (i32.const 0) (i32.const 0) (i32.const 1))))
