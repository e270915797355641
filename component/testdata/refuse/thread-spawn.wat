;; Out of scope: the thread.spawn-ref built-in (shared-everything threads)
(component (core type $t (func (param i32))) (core func (canon thread.spawn-ref $t)))
