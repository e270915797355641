;; Out of scope: the thread.yield built-in (threads)
(component (core func (canon thread.yield)))
