(module
  (memory $a 1)
  (memory $b 1)
  (func (export "f") (result i32) i32.const 0 i32.load $b))
