;; Re-exports a host function imported from "" beside a global from another instance, so that
;; one instance provides everything empty_module.wat imports from "".
(module
  (import "" "add" (func $add (param i32 i32) (result i32)))
  (import "p" "g" (global $g i32))
  (export "add" (func $add))
  (export "g" (global $g)))
