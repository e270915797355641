;; Every kind of type definition: all primitive and defined value types, function types, component
;; and instance types with all their declarators, resource types with and without destructor,
;; type imports and exports with both bounds, the resource built-ins and all three string
;; encodings. Assembled by `jco parse` (build.sh).
(component $root
  ;; an imported interface with a resource, as WIT interfaces are imported
  (type $fs-type (instance
    (export "file" (type $file (sub resource)))
    (type $own-file (own $file))
    (type $borrow-file (borrow $file))
    (export "[constructor]file" (func (param "path" string) (result $own-file)))
    (export "[method]file.size" (func (param "self" $borrow-file) (result u64)))
    (export "[static]file.open" (func (param "path" string) (result (result $own-file (error string)))))
    (type $mode (enum "read" "write"))
    (export "mode" (type $mode-name (eq $mode)))
    (export "mode-of" (func (param "f" $borrow-file) (result $mode-name)))
  ))
  (import "kobako:demo/fs@0.2.0" (instance $fs (type $fs-type)))
  ;; an outer alias of a resource into an instance type does not cross a component boundary
  (import "r" (type $r (sub resource)))
  (type $uses-r (instance
    (alias outer $root $r (type $r2))
    (export "process" (func (param "input" (borrow $r2))))
  ))
  (import "uses-r" (instance (type $uses-r)))
  (alias export $fs "file" (type $file))
  (alias export $fs "mode" (type $mode))

  ;; primitives, as type definitions of their own
  (type $bool bool) (type $s8 s8) (type $u8 u8) (type $s16 s16) (type $u16 u16)
  (type $s32 s32) (type $u32 u32) (type $s64 s64) (type $u64 u64)
  (type $f32 f32) (type $f64 f64) (type $char char) (type $string string)

  ;; defined value types
  (type $point (record (field "x" s32) (field "y" s32) (field "label" string)))
  (export $point-e "point" (type $point))
  (type $shape (variant (case "circle" f64) (case "poly" (list $point-e)) (case "empty")))
  (type $bytes (list u8))
  (type $triple (tuple u8 $string (option char)))
  (type $perms (flags "read" "write" "exec" "admin"))
  (type $color (enum "red" "green" "blue"))
  (type $maybe (option $point))
  (type $res-both (result $u32 (error string)))
  (type $res-ok (result $u32))
  (type $res-err (result (error $color)))
  (type $res-none (result))
  (type $own-file (own $file))
  (type $borrow-file (borrow $file))
  (type $nested (list (list (option (tuple $bytes $shape)))))

  ;; names for the types used by exported functions (external visibility)
  (export $shape-e "shape" (type $shape))
  (export $perms-e "perms" (type $perms))
  (export $color-e "color" (type $color))

  ;; a locally defined resource, with and without destructor
  (core module $impl
    (memory (export "mem") 1)
    (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 64))
    (func (export "dtor") (param i32))
    (func (export "describe") (param i32 i32 i32 i32 i32 i64 i32 i32 i32) (result i32) (i32.const 0))
    (func (export "make") (param i32) (result i32) (local.get 0))
    (func (export "utf16") (param i32 i32) (result i32) (i32.const 0))
    (func (export "latin1") (param i32 i32) (result i32) (i32.const 0))
    (func (export "post") (param i32))
    (func (export "run") (param i32 i32 i32 i32 i32))
  )
  (core instance $impl-i (instantiate $impl))
  (alias core export $impl-i "mem" (core memory $mem))
  (alias core export $impl-i "dtor" (core func $dtor))
  (type $counter (resource (rep i32) (dtor (core func $dtor))))
  (type $token (resource (rep i32)))
  (core func $counter-new (canon resource.new $counter))
  (core func $counter-rep (canon resource.rep $counter))
  (core func $counter-drop (canon resource.drop $counter))
  (core func $token-drop (canon resource.drop $token))
  (core func $file-drop (canon resource.drop $file))
  (export $counter-e "counter" (type $counter))
  (type $own-counter (own $counter-e))

  ;; function types, lifted with every string encoding
  (type $describe-t (func (param "p" $point-e) (param "s" $shape-e) (param "f" $perms-e) (param "c" $color-e) (result string)))
  (func $describe (type $describe-t)
    (canon lift (core func $impl-i "describe") (memory (core memory $mem)) (realloc (core func $impl-i "realloc"))
      string-encoding=utf8 (post-return (core func $impl-i "post"))))
  (func $make (param "start" u32) (result $own-counter) (canon lift (core func $impl-i "make")))
  (func $utf16 (param "s" string) (result u32)
    (canon lift (core func $impl-i "utf16") (memory (core memory $mem)) (realloc (core func $impl-i "realloc")) string-encoding=utf16))
  (func $latin1 (param "s" string) (result u32)
    (canon lift (core func $impl-i "latin1") (memory (core memory $mem)) (realloc (core func $impl-i "realloc")) string-encoding=latin1+utf16))
  (export "describe" (func $describe))
  (export "[constructor]counter" (func $make))
  (export "utf16" (func $utf16))
  (export "latin1" (func $latin1))

  ;; a component type with every declarator: core type, type, alias (outer and export), import
  ;; and export, and an instance type nested in it
  (type $plugin-type (component
    (core type $unary (func (param i32) (result i32)))
    (core type $m (module
      (type (func))
      (alias outer 1 0 (type))
      (import "env" "g" (func (type 1)))
      (export "f" (func (type 0)))))
    (alias outer $root $point (type $pt))
    (import "host" (instance $host
      (export "handle" (type (sub resource)))
      (export "pt" (type (eq $pt)))
    ))
    (alias export $host "handle" (type $h))
    (alias export $host "pt" (type $pt2))
    (import "run" (func (param "h" (borrow $h)) (param "p" $pt2)))
    (import "lib" (core module (type $m)))
    (export "out" (type $out (sub resource)))
    (export "make" (func (result (own $out))))
    (export "nested" (instance
      (export "inner" (type (sub resource)))
    ))
  ))
  (import "plugin" (component $plugin (type $plugin-type)))

  ;; instantiating it binds its imported resource to $counter and gives its exported resources
  ;; fresh identities
  (core module $lib
    (import "env" "g" (func (param i32) (result i32)))
    (func (export "f")))
  (type $run-t (func (param "h" (borrow $counter)) (param "p" $point)))
  (func $run (type $run-t)
    (canon lift (core func $impl-i "run") (memory (core memory $mem)) (realloc (core func $impl-i "realloc"))))
  (instance $host-i (export "handle" (type $counter)) (export "pt" (type $point)))
  (instance $plugin-i (instantiate $plugin
    (with "host" (instance $host-i))
    (with "run" (func $run))
    (with "lib" (core module $lib))))
  (alias export $plugin-i "out" (type $out))
  (alias export $plugin-i "make" (func $make-out))
  (alias export $plugin-i "nested" (instance $nested))
  (alias export $nested "inner" (type $inner))
  (core func $out-drop (canon resource.drop $out))
  (core func $inner-drop (canon resource.drop $inner))
  (core func $make-out-lowered (canon lower (func $make-out)))

  ;; lowering imported functions: the resource methods and a function returning a string
  (alias export $fs "[method]file.size" (func $size))
  (alias export $fs "[static]file.open" (func $open))
  (core func $size-lowered (canon lower (func $size)))
  (core func $open-lowered (canon lower (func $open) (memory (core memory $mem)) (realloc (core func $impl-i "realloc")) string-encoding=utf16))
)
