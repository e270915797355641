;; Core module of httptool.wasm: a tool-plugin that imports wasi:http (a hand-declared subset of
;; wasi:http/types@0.2.0, in httptool.wit), for the rule that a wasi:http import needs an
;; effective http_client grant. execute makes an empty header map and drops it.
(module
  (import "wasi:http/types@0.2.0" "[constructor]fields" (func $fields (result i32)))
  (import "wasi:http/types@0.2.0" "[resource-drop]fields" (func $drop (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "httptool")                 ;; 8
  (data (i32.const 16) "0.1.0")                   ;; 5
  (data (i32.const 32) "A tool that imports wasi:http.") ;; 30
  (data (i32.const 80) "{\"type\":\"object\"}")  ;; 17
  (global $heap (mut i32) (i32.const 4096))
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
                           (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (if (i32.gt_u (global.get $heap) (i32.const 65536)) (then unreachable))
    (local.get $p))
  (func $str (param $p i32) (param $n i32) (result i32)
    (i32.store (i32.const 1024) (local.get $p))
    (i32.store (i32.const 1028) (local.get $n))
    (i32.const 1024))
  (func (export "zeroclaw:plugin/plugin-info@0.1.0#plugin-name") (result i32) (call $str (i32.const 0) (i32.const 8)))
  (func (export "zeroclaw:plugin/plugin-info@0.1.0#plugin-version") (result i32) (call $str (i32.const 16) (i32.const 5)))
  (func (export "zeroclaw:plugin/tool@0.1.0#name") (result i32) (call $str (i32.const 0) (i32.const 8)))
  (func (export "zeroclaw:plugin/tool@0.1.0#description") (result i32) (call $str (i32.const 32) (i32.const 30)))
  (func (export "zeroclaw:plugin/tool@0.1.0#parameters-schema") (result i32) (call $str (i32.const 80) (i32.const 17)))
  (func (export "zeroclaw:plugin/tool@0.1.0#execute") (param $args i32) (param $len i32) (result i32)
    (global.set $heap (i32.const 4096))
    (call $drop (call $fields))
    (i32.store8 (i32.const 1024) (i32.const 0))
    (i32.store8 (i32.const 1028) (i32.const 1))
    (i32.store (i32.const 1032) (i32.const 0))
    (i32.store (i32.const 1036) (i32.const 8))
    (i32.store8 (i32.const 1040) (i32.const 0))
    (i32.const 1024))
)
