;; Runtime fixture: lowering writes only what the canonical ABI's store writes. realloc hands out
;; memory filled with 0xAA, and "pad" returns the first four bytes of a list<r> argument: the
;; bool of element 0 and the three padding bytes after it, which must still be 0xAA. Assembled
;; by ../build.sh with `jco parse`.
(component
  (core module $M
    (memory (export "mem") 1)
    (global $next (mut i32) (i32.const 256))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and
        (i32.add (global.get $next) (i32.sub (local.get 2) (i32.const 1)))
        (i32.sub (i32.const 0) (local.get 2))))
      (global.set $next (i32.add (local.get $p) (local.get 3)))
      (memory.fill (local.get $p) (i32.const 0xAA) (local.get 3))
      (local.get $p))
    (func (export "pad") (param $ptr i32) (param $len i32) (result i32)
      (i32.load (local.get $ptr))))
  (core instance $m (instantiate $M))
  (type $r (record (field "b" bool) (field "s" string)))
  (export $re "r" (type $r))
  (type $l (list $re))
  (func (export "pad") (param "x" $l) (result u32)
    (canon lift (core func $m "pad") (memory (core memory $m "mem")) (realloc (core func $m "realloc")))))
