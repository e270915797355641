(module
  (import "env" "g" (global $g i32))
  (global (export "h") i32 (i32.add (global.get $g) (i32.const 1))))
