;; Exports for the direct-export tests: "add" is exported twice, once under a name that an
;; unwrapped export of "sub" would take with the prefix "p/"; "spin" charges its own entry (a
;; loop header), so it has no wrapper.
(module
  (func $add (export "add") (export "p/sub") (param i32 i32) (result i32)
    local.get 0 local.get 1 i32.add)
  (func $sub (export "sub") (param i32 i32) (result i32)
    local.get 0 local.get 1 i32.sub)
  (func (export "spin") (loop (br 0))))
