;; Runtime fixture: one host resource imported under three names, as WASI 0.2's interfaces do it
;; (wasi:http/types exports headers and trailers as (eq fields), and wasi:io's error as
;; io-error): blob, its alias blob-view in the same instance, and thing in a second instance. A
;; handle made as own<thing> is measured as borrow<blob> and dropped as blob. Assembled by
;; ../build.sh with `jco parse`.
(component
  (import "docs:alias/a@0.1.0" (instance $a
    (export "blob" (type $blob (sub resource)))
    (export "blob-view" (type $view (eq $blob)))
    (export "[method]blob.size" (func (param "self" (borrow $blob)) (result u32)))
  ))
  (alias export $a "blob" (type $blob))
  (alias export $a "[method]blob.size" (func $size))
  (import "docs:alias/b@0.1.0" (instance $b
    (alias outer 1 $blob (type $blob0))
    (export "thing" (type $thing (eq $blob0)))
    (export "make" (func (param "n" u32) (result (own $thing))))
  ))
  (alias export $b "make" (func $make))

  (core func $size_l (canon lower (func $size)))
  (core func $make_l (canon lower (func $make)))
  (core func $drop_l (canon resource.drop $blob))
  (core instance $args
    (export "size" (func $size_l))
    (export "make" (func $make_l))
    (export "drop" (func $drop_l)))

  (core module $main
    (import "host" "size" (func $size (param i32) (result i32)))
    (import "host" "make" (func $make (param i32) (result i32)))
    (import "host" "drop" (func $drop (param i32)))
    ;; run: make a blob of n, measure it, drop it.
    (func (export "run") (param i32) (result i32)
      (local $h i32) (local $n i32)
      (local.set $h (call $make (local.get 0)))
      (local.set $n (call $size (local.get $h)))
      (call $drop (local.get $h))
      (local.get $n)))
  (core instance $main (instantiate $main (with "host" (instance $args))))
  (func (export "run") (param "n" u32) (result u32) (canon lift (core func $main "run")))
)
