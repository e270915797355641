;; Core module of misbehave.wasm, a tool-plugin (world wit/v0 tool-plugin) that misbehaves on
;; request; ../build.sh makes it a component with wit-component. execute reads the mode from the
;; first character of the value of args {"mode": "..."} (the only key, so the host's serialisation
;; puts it at byte 9):
;;   e(cho)    ok(tool-result{success, output: the args as received})
;;   s(pin)    loops forever
;;   f(lood)   calls logging.log-record 100,000 times with a 61,440-byte message, then ok("flooded")
;;   b(udget)  calls secrets.get("api_token") 1,001 times; output two letters: the outcome of the
;;             1,000th and the 1,001st call ('o' for ok, 'a'/'b'/'c' for access-denied/not-found/
;;             unavailable)
;;   g(row)    grows memory one page at a time until memory.grow fails; output the page count
;;   l(og)     one log-record at level warn, then ok("logged")
;; name "misbehave", plugin-name "misbehave", plugin-version "0.1.0".
(module
  (import "zeroclaw:plugin/logging@0.1.0" "log-record"
    (func $log (param i32 i32 i32 i32 i32 i32 i32 i64 i32 i32 i32 i32 i32)))
  (import "zeroclaw:plugin/secrets@0.1.0" "get" (func $secret (param i32 i32 i32)))
  (memory (export "memory") 2)
  ;; 0..1023: constants; 1024: return area; 1100: secrets.get return area; 4096..: bump heap.
  (data (i32.const 0) "misbehave")                 ;; 9
  (data (i32.const 16) "0.1.0")                    ;; 5
  (data (i32.const 32) "A tool that misbehaves on request.") ;; 34
  (data (i32.const 80) "{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\"}}}") ;; 57
  (data (i32.const 160) "flooded")                 ;; 7
  (data (i32.const 176) "logged")                  ;; 6
  (data (i32.const 192) "execute")                 ;; 7
  (data (i32.const 208) "hello from wat")          ;; 14
  (data (i32.const 224) "api_token")               ;; 9
  (data (i32.const 240) "{\"mode\":\"log\"}")      ;; 14
  (global $heap (mut i32) (i32.const 4096))
  (func $realloc (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
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
  (func (export "zeroclaw:plugin/plugin-info@0.1.0#plugin-name") (result i32) (call $str (i32.const 0) (i32.const 9)))
  (func (export "zeroclaw:plugin/plugin-info@0.1.0#plugin-version") (result i32) (call $str (i32.const 16) (i32.const 5)))
  (func (export "zeroclaw:plugin/tool@0.1.0#name") (result i32) (call $str (i32.const 0) (i32.const 9)))
  (func (export "zeroclaw:plugin/tool@0.1.0#description") (result i32) (call $str (i32.const 32) (i32.const 34)))
  (func (export "zeroclaw:plugin/tool@0.1.0#parameters-schema") (result i32) (call $str (i32.const 80) (i32.const 57)))
  ;; ok(tool-result{success: true, output: (p, n), error: none})
  (func $ok (param $p i32) (param $n i32) (result i32)
    (i32.store8 (i32.const 1024) (i32.const 0))
    (i32.store8 (i32.const 1028) (i32.const 1))
    (i32.store (i32.const 1032) (local.get $p))
    (i32.store (i32.const 1036) (local.get $n))
    (i32.store8 (i32.const 1040) (i32.const 0))
    (i32.const 1024))
  (func $outcome (result i32)
    (if (result i32) (i32.eqz (i32.load8_u (i32.const 1100)))
      (then (i32.const 111))                                   ;; 'o'
      (else (i32.add (i32.const 97) (i32.load8_u (i32.const 1104))))))
  (func (export "zeroclaw:plugin/tool@0.1.0#execute") (param $args i32) (param $len i32) (result i32)
    (local $mode i32) (local $i i32) (local $p i32) (local $d i32)
    (global.set $heap (i32.const 4096))
    (if (i32.gt_u (local.get $len) (i32.const 9))
      (then (local.set $mode (i32.load8_u offset=9 (local.get $args)))))
    (if (i32.eq (local.get $mode) (i32.const 115)) ;; 's'
      (then (loop $spin (br $spin))))
    (if (i32.eq (local.get $mode) (i32.const 102)) ;; 'f'
      (then
        (loop $flood
          (call $log (i32.const 2) (i32.const 192) (i32.const 7) (i32.const 16) (i32.const 0) (i32.const 0)
                     (i32.const 0) (i64.const 0) (i32.const 0) (i32.const 0) (i32.const 0)
                     (i32.const 65536) (i32.const 61440))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $flood (i32.lt_u (local.get $i) (i32.const 100000))))
        (return (call $ok (i32.const 160) (i32.const 7)))))
    (if (i32.eq (local.get $mode) (i32.const 98)) ;; 'b'
      (then
        (loop $calls
          (call $secret (i32.const 224) (i32.const 9) (i32.const 1100))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (if (i32.eq (local.get $i) (i32.const 1000))
            (then (i32.store8 (i32.const 300) (call $outcome))))
          (br_if $calls (i32.lt_u (local.get $i) (i32.const 1001))))
        (i32.store8 (i32.const 301) (call $outcome))
        (return (call $ok (i32.const 300) (i32.const 2)))))
    (if (i32.eq (local.get $mode) (i32.const 103)) ;; 'g'
      (then
        (loop $grow
          (br_if $grow (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
        ;; decimal page count at 320..
        (local.set $i (memory.size))
        (local.set $p (i32.const 330))
        (loop $digits
          (local.set $p (i32.sub (local.get $p) (i32.const 1)))
          (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $i) (i32.const 10))))
          (local.set $i (i32.div_u (local.get $i) (i32.const 10)))
          (br_if $digits (local.get $i)))
        (return (call $ok (local.get $p) (i32.sub (i32.const 330) (local.get $p))))))
    (if (i32.eq (local.get $mode) (i32.const 108)) ;; 'l'
      (then
        (call $log (i32.const 3) (i32.const 192) (i32.const 7) (i32.const 36) (i32.const 1) (i32.const 0)
                   (i32.const 1) (i64.const 5) (i32.const 1) (i32.const 240) (i32.const 14)
                   (i32.const 208) (i32.const 14))
        (return (call $ok (i32.const 176) (i32.const 6)))))
    (call $ok (local.get $args) (local.get $len)))
)
