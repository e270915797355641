;; Out of scope: the context.get built-in (async)
(component (core func (canon context.get i32 0)))
