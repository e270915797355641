(module
  (func $f (export "f") (param i32) (result i32)
    local.get 0 return_call $f))
