;; Imports from the empty module name, valid core wasm that wazero does not link by name: the
;; engine renames it at rewrite time and links it to what Imports{""} provides.
(module
  (import "" "add" (func $add (param i32 i32) (result i32)))
  (import "" "g" (global $g i32))
  (func (export "run") (param i32) (result i32)
    (call $add (local.get 0) (global.get $g))))
