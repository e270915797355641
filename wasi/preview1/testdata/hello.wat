;; hello.wat: the smallest WASI command: writes "hello, world\n" to stdout and returns.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hello, world\n")
  (func (export "_start")
    ;; iovec at 0: {buf 16, len 13}; nwritten at 8
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 13))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
