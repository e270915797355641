;; Out of scope: the future type (async)
(component (type (future string)))
