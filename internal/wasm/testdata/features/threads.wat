(module
  (memory 1 1 shared)
  (func $load (export "load") (param i32) (result i32)
    local.get 0 i32.atomic.load)
  (func (export "fence") atomic.fence))
