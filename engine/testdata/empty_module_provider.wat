;; Provides the global empty_module.wat imports from "".
(module (global (export "g") i32 (i32.const 1)))
