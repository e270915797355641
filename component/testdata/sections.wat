;; Every section kind of the component binary format but start (see start.wat), in shapes
;; wit-component does not produce: nested components with outer aliases, component instantiation,
;; inline-export instances, all alias kinds, core module types, and custom sections. Assembled by
;; `jco parse` (build.sh).
(component $root
  (@custom "kobako-note" "every section kind")

  ;; core type section: a function type and a module type with import, type, alias and export
  ;; declarators
  (core type $unary (func (param i32) (result i32)))
  (core type $libc-type (module
    (type $f (func (param i32 i32 i32 i32) (result i32)))
    (alias outer $root $unary (type $u))
    (import "env" "base" (global i32))
    (export "memory" (memory 1))
    (export "realloc" (func (type $f)))
    (export "double" (func (type $u)))
  ))

  ;; import section: a core module, a func, an instance, a component and types
  (import "libc" (core module $libc (type $libc-type)))
  (import "log" (func $log (param "msg" string)))
  (import "kobako:demo/clock@1.2.3" (instance $clock
    (export "now" (func (result u64)))
  ))
  (type $child-type (component
    (import "x" (func (param "v" u32) (result u32)))
    (export "y" (func (param "v" u32) (result u32)))
  ))
  (import "plugin" (component $plugin (type $child-type)))
  (import "handle" (type $handle (sub resource)))

  ;; core module section
  (core module $env
    (global (export "base") i32 (i32.const 8))
    (table (export "table") 1 funcref)
    (memory (export "scratch") 1 2)
    (func (export "identity") (param i32) (result i32) (local.get 0))
  )
  (core module $main
    (import "env" "base" (global $base i32))
    (import "libc" "memory" (memory 1))
    (import "libc" "realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
    (import "host" "log" (func $log (param i32 i32)))
    (import "host" "double" (func $double (param i32) (result i32)))
    (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
    (func (export "init"))
    (func (export "greet") (param i32 i32) (call $log (local.get 0) (local.get 1)))
  )

  ;; core instance section: instantiation with arguments and a bundle of exports
  (core instance $env-i (instantiate $env))
  (core instance $libc-i (instantiate $libc (with "env" (instance $env-i))))

  ;; alias section: core instance exports of every core sort
  (alias core export $env-i "base" (core global $base))
  (alias core export $env-i "table" (core table $table))
  (alias core export $env-i "scratch" (core memory $scratch))
  (alias core export $env-i "identity" (core func $identity))
  (alias core export $libc-i "memory" (core memory $mem))
  (alias core export $libc-i "realloc" (core func $realloc))
  (alias core export $libc-i "double" (core func $double))

  ;; canon section
  (core func $log-lowered (canon lower (func $log) (memory $mem) (realloc $realloc) string-encoding=utf8))
  (core instance $host (export "log" (func $log-lowered)) (export "double" (func $double)))
  (core instance $bundle
    (export "base" (global $base))
    (export "table" (table $table))
    (export "scratch" (memory $scratch))
    (export "identity" (func $identity)))
  (core instance $main-i (instantiate $main
    (with "env" (instance $env-i))
    (with "libc" (instance $libc-i))
    (with "host" (instance $host))))
  (func $add (param "a" u32) (param "b" u32) (result u32) (canon lift (core func $main-i "add")))
  (func $init (canon lift (core func $main-i "init")))
  (func $dbl (param "v" u32) (result u32) (canon lift (core func $double)))
  (func $greet (param "name" string)
    (canon lift (core func $main-i "greet") (memory $mem) (realloc $realloc) string-encoding=utf8))

  ;; component section: a nested component reaching its parent through outer aliases
  (component $inner
    (alias outer $root $unary (core type $u))
    (alias outer $root $env (core module $env2))
    (alias outer $root $child-type (type $ct))
    (alias outer $root $plugin (component $p2))
    (import "x" (func $x (param "v" u32) (result u32)))
    (core instance $e (instantiate $env2))
    (instance $p (instantiate $p2 (with "x" (func $x))))
    (alias export $p "y" (func $y))
    (export "y" (func $y))
    (component $deeper
      (alias outer $inner $ct (type $ct2))
      (alias outer $root $unary (core type $u2))
    )
    (export "deeper" (component $deeper))
  )

  ;; instance section: instantiation with arguments, and a bundle of exports
  (instance $inner-i (instantiate $inner (with "x" (func $dbl)) (with "unused" (func $add))))
  (alias export $inner-i "y" (func $y))
  (alias export $inner-i "deeper" (component $deeper))
  (alias export $clock "now" (func $now))
  (instance $api
    (export "add" (func $add))
    (export "now" (func $now))
    (export "y" (func $y)))
  (alias export $api "add" (func $add2))

  ;; type section, then the export section with every exportable sort and an ascribed type
  (type $pair (tuple u32 u32))
  (export "kobako:demo/api@0.1.0" (instance $api))
  (export "add2" (func $add2))
  (export "greet" (func $greet))
  (export "pair" (type $pair))
  (export "handle" (type $handle))
  (export "env" (core module $env))
  (export "deeper" (component $deeper))
  (export "kobako:demo/api-view@0.1.0" (instance $api) (instance (export "add" (func (param "a" u32) (param "b" u32) (result u32)))))
  (@custom "kobako-trailer" "the last section")
)
