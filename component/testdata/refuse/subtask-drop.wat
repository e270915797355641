;; Out of scope: the subtask.drop built-in (async)
(component (core func (canon subtask.drop)))
