;; Tables with and without a declared maximum, grown by the guest.
(module
  (table $unbounded (export "unbounded") 1 funcref)
  (table $bounded (export "bounded") 1 10 funcref)
  (func (export "grow_unbounded") (param i32) (result i32)
    (table.grow $unbounded (ref.null func) (local.get 0)))
  (func (export "grow_bounded") (param i32) (result i32)
    (table.grow $bounded (ref.null func) (local.get 0))))
