;; Out of scope: the error-context.new built-in
(component (core func (canon error-context.new)))
