;; The "env" module globals.wat imports from.
(module
  (global (export "base") i32 (i32.const 3))
  (global (export "counter") (mut i64) (i64.const 40))
  (func (export "f") (param i32) (result i32)
    local.get 0 i32.const 3 i32.mul))
