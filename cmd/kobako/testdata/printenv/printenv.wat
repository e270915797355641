;; printenv prints its environment, one K=V a line, in the order WASI gives it, as the guest reads
;; it: the first of duplicate keys is what getenv returns in Go and wasi-libc. Rebuild with build.sh.
(module
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 16) "\n")
  ;; 0: count, 4: buffer size, 8..16: iovec, 24: written, 1024..: pointers, 32768..: strings
  (func $puts (param $p i32) (param $n i32)
    (i32.store (i32.const 8) (local.get $p))
    (i32.store (i32.const 12) (local.get $n))
    (drop (call $write (i32.const 1) (i32.const 8) (i32.const 1) (i32.const 24))))
  (func (export "_start")
    (local $i i32) (local $p i32) (local $n i32)
    (drop (call $sizes (i32.const 0) (i32.const 4)))
    ;; the pointer table holds at most 7936 entries, the strings at most 32 KiB
    (if (i32.or (i32.gt_u (i32.load (i32.const 0)) (i32.const 7936)) (i32.gt_u (i32.load (i32.const 4)) (i32.const 32768)))
      (then unreachable))
    (drop (call $get (i32.const 1024) (i32.const 32768)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (i32.load (i32.const 0))))
      (local.set $p (i32.load (i32.add (i32.const 1024) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $n (i32.const 0))
      (block $end (loop $len
        (br_if $end (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $len)))
      (call $puts (local.get $p) (local.get $n))
      (call $puts (i32.const 16) (i32.const 1))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each))))
)
