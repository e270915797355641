;; Runtime fixture: outer aliases of core modules and components. $Mid instantiates the root's
;; core module $counter and component $Leaf through outer aliases (one scope out), $Inner the
;; root's $counter from two scopes out, and $Mid its own $Inner through an alias of depth 0.
;; Every instantiation has its own state: the root and $Mid each have a $counter instance and a
;; $Leaf instance. Assembled by ../build.sh with `jco parse`.
(component $root
  (core module $counter
    (global $n (mut i32) (i32.const 0))
    (func (export "next") (result i32)
      (global.set $n (i32.add (global.get $n) (i32.const 1)))
      (global.get $n)))
  (component $Leaf
    (core module $m
      (global $n (mut i32) (i32.const 100))
      (func (export "next") (result i32)
        (global.set $n (i32.add (global.get $n) (i32.const 1)))
        (global.get $n)))
    (core instance $i (instantiate $m))
    (func (export "next") (result u32) (canon lift (core func $i "next"))))
  (component $Mid
    (alias outer $root $counter (core module $c))
    (alias outer $root $Leaf (component $leaf))
    (core instance $ci (instantiate $c))
    (instance $li (instantiate $leaf))
    (component $Inner
      (alias outer $root $counter (core module $c2))
      (core instance $i (instantiate $c2))
      (func (export "next") (result u32) (canon lift (core func $i "next"))))
    (alias outer $Mid $Inner (component $inner))
    (instance $ii (instantiate $inner))
    (func (export "count") (result u32) (canon lift (core func $ci "next")))
    (alias export $li "next" (func $leaf-next))
    (alias export $ii "next" (func $inner-next))
    (export "leaf-next" (func $leaf-next))
    (export "inner-next" (func $inner-next)))
  (core instance $rc (instantiate $counter))
  (instance $leaf (instantiate $Leaf))
  (instance $mid (instantiate $Mid))
  (func (export "root-count") (result u32) (canon lift (core func $rc "next")))
  (alias export $leaf "next" (func $root-leaf-next))
  (alias export $mid "count" (func $mid-count))
  (alias export $mid "leaf-next" (func $mid-leaf-next))
  (alias export $mid "inner-next" (func $inner-next))
  (export "root-leaf-next" (func $root-leaf-next))
  (export "mid-count" (func $mid-count))
  (export "mid-leaf-next" (func $mid-leaf-next))
  (export "inner-next" (func $inner-next))
)
