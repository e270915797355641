;; Core module of blocker.wasm: a tool-plugin whose execute blocks in a host call. It subscribes
;; to a monotonic-clock timer an hour away and waits on it with wasi:io/poll.poll, so only the
;; host's deadline can end the call. The WASI interfaces it imports are declared by hand, the
;; used subset only, in blocker.wit; ../build.sh makes the component with wit-component.
(module
  (import "wasi:clocks/monotonic-clock@0.2.0" "subscribe-duration" (func $subscribe (param i64) (result i32)))
  (import "wasi:io/poll@0.2.0" "poll" (func $poll (param i32 i32 i32)))
  (import "wasi:io/poll@0.2.0" "[resource-drop]pollable" (func $drop (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "blocker")                  ;; 7
  (data (i32.const 16) "0.1.0")                   ;; 5
  (data (i32.const 32) "A tool that blocks in a host call.") ;; 34
  (data (i32.const 80) "{\"type\":\"object\"}")  ;; 17
  (data (i32.const 112) "woke")                   ;; 4
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
  (func (export "zeroclaw:plugin/plugin-info@0.1.0#plugin-name") (result i32) (call $str (i32.const 0) (i32.const 7)))
  (func (export "zeroclaw:plugin/plugin-info@0.1.0#plugin-version") (result i32) (call $str (i32.const 16) (i32.const 5)))
  (func (export "zeroclaw:plugin/tool@0.1.0#name") (result i32) (call $str (i32.const 0) (i32.const 7)))
  (func (export "zeroclaw:plugin/tool@0.1.0#description") (result i32) (call $str (i32.const 32) (i32.const 34)))
  (func (export "zeroclaw:plugin/tool@0.1.0#parameters-schema") (result i32) (call $str (i32.const 80) (i32.const 17)))
  (func (export "zeroclaw:plugin/tool@0.1.0#execute") (param $args i32) (param $len i32) (result i32)
    (local $h i32)
    (global.set $heap (i32.const 4096))
    (local.set $h (call $subscribe (i64.const 3600000000000)))
    (i32.store (i32.const 2000) (local.get $h))
    (call $poll (i32.const 2000) (i32.const 1) (i32.const 2008))
    (call $drop (local.get $h))
    (i32.store8 (i32.const 1024) (i32.const 0))
    (i32.store8 (i32.const 1028) (i32.const 1))
    (i32.store (i32.const 1032) (i32.const 112))
    (i32.store (i32.const 1036) (i32.const 4))
    (i32.store8 (i32.const 1040) (i32.const 0))
    (i32.const 1024))
)
