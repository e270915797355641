;; The example package that `kobako function` embeds: tool greet answers "Hello, <name>!" for
;; {"name":"<name>"}. Like a package built with subako/sdk, it answers a call of another tool, or
;; without a string "name", with an isError result saying what was wrong. Rebuild with build.sh.
(module
  ;; Shared helpers (the same in every fixture): line reader, id finder, NUL-terminated writes.
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0..16 iovec and counters; 16..64 a poll subscription; 128.. poll events; 256.. strings;
  ;; 4096..20480 the current stdin line.
  (global $len (mut i32) (i32.const 0))
  (global $idp (mut i32) (i32.const 0))
  (global $idl (mut i32) (i32.const 0))
  (data (i32.const 256) "\"id\":\00")
  (data (i32.const 264) "{\"jsonrpc\":\"2.0\",\"id\":\00")

  (func $write (param $fd i32) (param $p i32) (param $l i32)
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (local.get $l))
    (drop (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8))))

  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $b (loop $l
      (br_if $b (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $n))

  (func $puts (param $fd i32) (param $p i32)
    (call $write (local.get $fd) (local.get $p) (call $strlen (local.get $p))))

  ;; read_line makes the next stdin line the current one, at 4096 (without its newline); 0 at end of
  ;; input. It reads in bulk; bytes after the newline stay buffered for the next line.
  (global $have (mut i32) (i32.const 0))
  (global $used (mut i32) (i32.const 0))
  (func $read_line (result i32)
    (local $i i32) (local $n i32)
    (if (global.get $used) (then
      (memory.copy (i32.const 4096) (i32.add (i32.const 4096) (global.get $used)) (i32.sub (global.get $have) (global.get $used)))
      (global.set $have (i32.sub (global.get $have) (global.get $used)))
      (global.set $used (i32.const 0))))
    (loop $more
      (block $need
        (loop $scan
          (br_if $need (i32.ge_u (local.get $i) (global.get $have)))
          (if (i32.eq (i32.load8_u (i32.add (i32.const 4096) (local.get $i))) (i32.const 10)) (then
            (global.set $len (local.get $i))
            (global.set $used (i32.add (local.get $i) (i32.const 1)))
            (return (i32.const 1))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $scan)))
      ;; A line longer than the buffer is cut at 16 KiB.
      (if (i32.ge_u (global.get $have) (i32.const 16384)) (then
        (global.set $len (global.get $have)) (global.set $used (global.get $have)) (return (i32.const 1))))
      (i32.store (i32.const 0) (i32.add (i32.const 4096) (global.get $have)))
      (i32.store (i32.const 4) (i32.sub (i32.const 16384) (global.get $have)))
      (if (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)) (then (return (i32.const 0))))
      (local.set $n (i32.load (i32.const 8)))
      (if (i32.eqz (local.get $n)) (then
        (if (global.get $have) (then
          (global.set $len (global.get $have)) (global.set $used (global.get $have)) (return (i32.const 1))))
        (return (i32.const 0))))
      (global.set $have (i32.add (global.get $have) (local.get $n)))
      (br $more))
    (i32.const 0))

  ;; find returns the offset just past the first occurrence of the NUL-terminated needle in the
  ;; line, or -1.
  (func $find (param $np i32) (result i32)
    (call $find_from (local.get $np) (i32.const 0)))

  ;; find_from is find starting at offset $i of the line.
  (func $find_from (param $np i32) (param $i i32) (result i32)
    (local $nl i32) (local $j i32)
    (local.set $nl (call $strlen (local.get $np)))
    (block $notfound (loop $outer
      (br_if $notfound (i32.gt_u (i32.add (local.get $i) (local.get $nl)) (global.get $len)))
      (local.set $j (i32.const 0))
      (block $mismatch (loop $inner
        (if (i32.eq (local.get $j) (local.get $nl)) (then (return (i32.add (local.get $i) (local.get $nl)))))
        (br_if $mismatch (i32.ne (i32.load8_u (i32.add (i32.const 4096) (i32.add (local.get $i) (local.get $j))))
                                 (i32.load8_u (i32.add (local.get $np) (local.get $j)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $inner)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $outer)))
    (i32.const -1))

  ;; parse_id finds the request's "id" value (the host writes it before "params"); 0 if none.
  (func $parse_id (result i32)
    (local $s i32) (local $e i32) (local $c i32)
    (local.set $s (call $find (i32.const 256)))
    (if (i32.lt_s (local.get $s) (i32.const 0)) (then (return (i32.const 0))))
    (local.set $e (local.get $s))
    (block $b (loop $l
      (br_if $b (i32.ge_u (local.get $e) (global.get $len)))
      (local.set $c (i32.load8_u (i32.add (i32.const 4096) (local.get $e))))
      (br_if $b (i32.eq (local.get $c) (i32.const 44)))
      (br_if $b (i32.eq (local.get $c) (i32.const 125)))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $l)))
    (global.set $idp (i32.add (i32.const 4096) (local.get $s)))
    (global.set $idl (i32.sub (local.get $e) (local.get $s)))
    (i32.const 1))

  ;; answer writes {"jsonrpc":"2.0","id":<id><rest>, rest being NUL-terminated at $rest.
  (func $answer (param $rest i32)
    (call $puts (i32.const 1) (i32.const 264))
    (call $write (i32.const 1) (global.get $idp) (global.get $idl))
    (call $puts (i32.const 1) (local.get $rest)))

  ;; sleep_forever waits on the monotonic clock, 60 s at a time.
  (func $sleep_forever
    (i32.store8 (i32.const 24) (i32.const 0))
    (i32.store (i32.const 32) (i32.const 1))
    (i64.store (i32.const 40) (i64.const 60000000000))
    (loop $z
      (drop (call $poll_oneoff (i32.const 16) (i32.const 128) (i32.const 1) (i32.const 192)))
      (br $z)))

  ;; serve answers every request with the result that respond picks, and returns at end of input.
  (func $serve
    (block $eof (loop $l
      (br_if $eof (i32.eqz (call $read_line)))
      (if (call $parse_id) (then (call $respond)))
      (br $l))))

  ;; The three standard results, used by fixtures that misbehave only in one respect.
  (data (i32.const 512) ",\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}}}}\n\00")
  (data (i32.const 1024) ",\"result\":{\"resultType\":\"complete\",\"tools\":[{\"name\":\"greet\",\"description\":\"Greets.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}]}}\n\00")
  (data (i32.const 1536) ",\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"hello from wat\"}]}}\n\00")
  (data (i32.const 1792) "\"method\":\"\00")
  ;; respond_ok picks the standard result by the request's method: server/discover, tools/list
  ;; or (anything else) tools/call. The host writes "method" right after "id", so this is cheap.
  (func $respond_ok
    (local $m i32)
    (local.set $m (call $find (i32.const 1792)))
    (if (i32.lt_s (local.get $m) (i32.const 0)) (then (call $answer (i32.const 1536)) (return)))
    (if (i32.eq (i32.load8_u (i32.add (i32.const 4096) (local.get $m))) (i32.const 115)) ;; s
      (then (call $answer (i32.const 512)) (return)))
    (if (i32.eq (i32.load8_u (i32.add (i32.const 4096) (i32.add (local.get $m) (i32.const 6)))) (i32.const 108)) ;; tools/l
      (then (call $answer (i32.const 1024)) (return)))
    (call $answer (i32.const 1536)))

  (data (i32.const 2048) "\"arguments\":{\00")
  (data (i32.const 2064) "\"name\":\00")
  (data (i32.const 2080) ",\"name\":\"greet\"}}\00")
  (data (i32.const 2112) ",\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"Hello, \00")
  (data (i32.const 2240) "!\"}]}}\n\00")
  (data (i32.const 2304) ",\"result\":{\"resultType\":\"complete\",\"tools\":[{\"name\":\"greet\",\"description\":\"Greet someone by name.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"description\":\"Who to greet.\"}},\"required\":[\"name\"]}}]}}\n\00")
  (data (i32.const 2560) ",\"result\":{\"resultType\":\"complete\",\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"\00")
  (data (i32.const 2688) "\"}]}}\n\00")
  (data (i32.const 2704) "unknown tool \\\"\00")
  (data (i32.const 2736) "\\\"; this package has: greet\00")
  (data (i32.const 2784) "missing required argument \\\"name\\\"\00")
  (data (i32.const 2848) "argument \\\"name\\\" must be a string\00")
  (data (i32.const 2912) ",\"name\":\"\00")

  ;; ends_with reports whether the line ends with the NUL-terminated suffix.
  (func $ends_with (param $p i32) (result i32)
    (local $n i32) (local $i i32)
    (local.set $n (call $strlen (local.get $p)))
    (if (i32.gt_u (local.get $n) (global.get $len)) (then (return (i32.const 0))))
    (block $b (loop $l
      (br_if $b (i32.eq (local.get $i) (local.get $n)))
      (if (i32.ne (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                  (i32.load8_u (i32.add (i32.const 4096) (i32.add (i32.sub (global.get $len) (local.get $n)) (local.get $i)))))
        (then (return (i32.const 0))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (i32.const 1))

  ;; copy_string writes the contents of the JSON string starting at line offset $s, up to its
  ;; closing quote (escapes stay escaped, so the output stays valid JSON string contents).
  (func $copy_string (param $s i32)
    (local $e i32)
    (local.set $e (local.get $s))
    (block $b (loop $l
      (br_if $b (i32.ge_u (local.get $e) (global.get $len)))
      (br_if $b (i32.eq (i32.load8_u (i32.add (i32.const 4096) (local.get $e))) (i32.const 34)))
      (if (i32.eq (i32.load8_u (i32.add (i32.const 4096) (local.get $e))) (i32.const 92))
        (then (local.set $e (i32.add (local.get $e) (i32.const 1)))))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $l)))
    (if (i32.gt_u (local.get $e) (global.get $len)) (then (local.set $e (global.get $len))))
    (call $write (i32.const 1) (i32.add (i32.const 4096) (local.get $s)) (i32.sub (local.get $e) (local.get $s))))

  ;; fail answers an isError result whose text is the NUL-terminated string at $msg.
  (func $fail (param $msg i32)
    (call $answer (i32.const 2560))
    (call $puts (i32.const 1) (local.get $msg))
    (call $puts (i32.const 1) (i32.const 2688)))

  (func $respond
    (local $s i32) (local $last i32)
    (local.set $s (call $find (i32.const 1792)))
    (if (i32.ge_s (local.get $s) (i32.const 0)) (then
      (if (i32.eq (i32.load8_u (i32.add (i32.const 4096) (local.get $s))) (i32.const 115))
        (then (call $answer (i32.const 512)) (return)))
      (if (i32.eq (i32.load8_u (i32.add (i32.const 4096) (i32.add (local.get $s) (i32.const 6)))) (i32.const 108))
        (then (call $answer (i32.const 2304)) (return)))))
    ;; tools/call. The host writes params' members in sorted order, so the tool's name is the
    ;; last member of the line: ...,"name":"<tool>"}}.
    (if (i32.eqz (call $ends_with (i32.const 2080))) (then
      (local.set $last (i32.const -1))
      (local.set $s (call $find (i32.const 2912)))
      (block $b (loop $l
        (br_if $b (i32.lt_s (local.get $s) (i32.const 0)))
        (local.set $last (local.get $s))
        (local.set $s (call $find_from (i32.const 2912) (local.get $s)))
        (br $l)))
      (call $answer (i32.const 2560))
      (call $puts (i32.const 1) (i32.const 2704))
      (if (i32.ge_s (local.get $last) (i32.const 0)) (then (call $copy_string (local.get $last))))
      (call $puts (i32.const 1) (i32.const 2736))
      (call $puts (i32.const 1) (i32.const 2688))
      (return)))
    (local.set $s (call $find (i32.const 2048)))
    (if (i32.ge_s (local.get $s) (i32.const 0)) (then
      (local.set $s (call $find_from (i32.const 2064) (local.get $s)))))
    ;; The tool's own "name": member, 9 bytes before the end, is not an argument.
    (if (i32.or (i32.lt_s (local.get $s) (i32.const 0)) (i32.eq (local.get $s) (i32.sub (global.get $len) (i32.const 9))))
      (then (call $fail (i32.const 2784)) (return)))
    (if (i32.ne (i32.load8_u (i32.add (i32.const 4096) (local.get $s))) (i32.const 34)) (then
      (call $fail (i32.const 2848)) (return)))
    (call $answer (i32.const 2112))
    (call $copy_string (i32.add (local.get $s) (i32.const 1)))
    (call $puts (i32.const 1) (i32.const 2240)))
  (func (export "_start") (call $serve))
)
