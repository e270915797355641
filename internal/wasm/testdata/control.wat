;; Control flow shapes for the fuel tests. Comments give each export's exact fuel.
(module
  (type $pair (func (param i32) (result i32 i32)))
  (memory 1)

  ;; straight: 3 + 0 (end) = 3
  (func (export "straight") (result i32)
    i32.const 1 i32.const 2 i32.add)

  ;; sum(n): entry 2 (i32.const 0, local.set 1) ... see fuel_test.go
  (func (export "sum") (param $n i32) (result i32) (local $acc i32)
    block $done
      loop $top
        local.get $n i32.eqz br_if $done
        local.get $acc local.get $n i32.add local.set $acc
        local.get $n i32.const 1 i32.sub local.set $n
        br $top
      end
    end
    local.get $acc)

  ;; count down with the condition at the bottom
  (func (export "countdown") (param $n i32) (result i32) (local $i i32)
    loop $l
      local.get $i i32.const 1 i32.add local.set $i
      local.get $n i32.const 1 i32.sub local.tee $n
      br_if $l
    end
    local.get $i)

  ;; if/else with different arm costs
  (func (export "ifelse") (param i32) (result i32)
    local.get 0
    if (result i32)
      i32.const 10
    else
      i32.const 20 i32.const 1 i32.add
    end)

  ;; if without else
  (func (export "ifnoelse") (param i32) (result i32) (local i32)
    local.get 0
    if
      i32.const 5 local.set 1
    end
    local.get 1)

  ;; br_table dispatch
  (func (export "switch") (param i32) (result i32)
    block $d
      block $c
        block $b
          block $a
            local.get 0
            br_table $a $b $c $d
          end
          i32.const 100 return
        end
        i32.const 200 return
      end
      i32.const 300 return
    end
    i32.const 400)

  ;; nested blocks and early exits, dead code after br
  (func (export "nested") (param i32) (result i32) (local i32)
    block $out
      block $in
        local.get 0 i32.const 3 i32.gt_u br_if $out
        local.get 0 i32.const 1 i32.and br_if $in
        i32.const 7 local.set 1
        br $out
        i32.const 99 local.set 1 ;; dead
        unreachable             ;; dead
      end
      i32.const 9 local.set 1
    end
    local.get 1)

  ;; multi-value block with parameters
  (func (export "multi") (param i32) (result i32)
    local.get 0
    i32.const 1
    block (param i32 i32) (result i32 i32)
      i32.add
      i32.const 2
    end
    i32.mul)

  (func $split (type $pair) (param i32) (result i32 i32)
    local.get 0 i32.const 1 i32.shr_u
    local.get 0 i32.const 1 i32.and)

  ;; multi-value call
  (func (export "callmulti") (param i32) (result i32)
    local.get 0 call $split i32.add)

  ;; a loop that nothing branches to: no header check
  (func (export "plainloop") (result i32)
    loop (result i32)
      i32.const 42
    end)

  ;; nested loops with an outer exit
  (func (export "nestedloops") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
    block $exit
      loop $outer
        local.get $i local.get $n i32.ge_u br_if $exit
        i32.const 0 local.set $j
        loop $inner
          local.get $acc i32.const 1 i32.add local.set $acc
          local.get $j i32.const 1 i32.add local.tee $j
          local.get $n i32.lt_u br_if $inner
        end
        local.get $i i32.const 1 i32.add local.set $i
        br $outer
      end
    end
    local.get $acc)

  ;; memory use, select, drop, nop
  (func (export "mem") (param i32) (result i32)
    i32.const 0 local.get 0 i32.store
    nop
    i32.const 0 i32.load
    i32.const 5 drop
    i32.const 1 local.get 0 select)

  ;; return in the middle, unreachable code after
  (func (export "early") (param i32) (result i32)
    local.get 0
    if
      i32.const 1 return
    end
    i32.const 2
    return
    i32.const 3 drop)

  ;; infinite loop without calls: must run out of fuel
  (func (export "spin")
    loop $l
      br $l
    end)

  ;; unbounded recursion through a leaf
  (func $rec (export "rec") (param i32) (result i32)
    local.get 0 i32.const 1 i32.add call $rec)

  ;; traps on its own
  (func (export "trap") (result i32)
    i32.const 1 i32.const 0 i32.div_u)

  ;; call_indirect through a table
  (table 2 funcref)
  (elem (i32.const 0) $split2 $split3)
  (type $un (func (param i32) (result i32)))
  (func $split2 (param i32) (result i32) local.get 0 i32.const 2 i32.mul)
  (func $split3 (param i32) (result i32) local.get 0 i32.const 3 i32.mul)
  (func (export "indirect") (param i32 i32) (result i32)
    local.get 1 local.get 0 call_indirect (type $un))
)
