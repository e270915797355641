;; Out of scope: the waitable-set.new built-in (async)
(component (core func (canon waitable-set.new)))
