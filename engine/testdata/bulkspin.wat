;; Loops over bulk instructions that each cost 1 fuel but touch many bytes or elements: without a
;; deadline check after each long one, a deadline would fire only every 100,000 fuel (minutes).
(module
  (memory 1024)
  (table 100000 funcref)
  (data $d "kobako")
  (elem $e func $fill)
  (func $fill (export "fill")
    (loop $l
      (memory.fill (i32.const 0) (i32.const 7) (i32.const 67108864))
      (br $l)))
  (func (export "copy")
    (loop $l
      (memory.copy (i32.const 0) (i32.const 1) (i32.const 67108863))
      (br $l)))
  (func (export "tablefill")
    (loop $l
      (table.fill 0 (i32.const 0) (ref.null func) (i32.const 100000))
      (br $l)))
  ;; Short fills never call the hook: they stop on fuel like any loop.
  (func (export "short") (param i32)
    (loop $l
      (memory.fill (i32.const 0) (i32.const 7) (i32.const 65535))
      (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))))
