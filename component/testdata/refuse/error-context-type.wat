;; Out of scope: the error-context type
(component (type error-context))
