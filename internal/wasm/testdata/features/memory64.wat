(module
  (memory i64 1)
  (func (export "f") (result i32) i64.const 0 i32.load))
