;; A start function (Binary.md, "Start Definitions"). Start is gated behind the value feature
;; (🪙) in the reference validator but is part of the component model kobako decodes.
(component
  (core module $m
    (global $ran (mut i32) (i32.const 0))
    (func (export "init") (global.set $ran (i32.const 1))))
  (core instance $i (instantiate $m))
  (func $init (canon lift (core func $i "init")))
  (start $init)
)
