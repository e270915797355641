;; Calls the host, which calls back into "enter": guest -> host -> guest without end.
(module
  (import "host" "callback" (func $cb))
  (func (export "enter") (call $cb)))
