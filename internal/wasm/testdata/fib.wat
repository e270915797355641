(module
  (func $fib (export "fib") (param i32) (result i32)
    local.get 0 i32.const 2 i32.lt_s
    if (result i32) local.get 0
    else local.get 0 i32.const 1 i32.sub call $fib local.get 0 i32.const 2 i32.sub call $fib i32.add end)
  (func (export "loop") (param i32) (result i32) (local i32)
    loop
      local.get 1 local.get 0 i32.add local.set 1
      local.get 0 i32.const 1 i32.sub local.tee 0
      br_if 0
    end
    local.get 1))
