;; Calls into another core instance of the same store (spin_deep), which never returns.
(module
  (import "deep" "run" (func $run))
  (func (export "go") (call $run)))
