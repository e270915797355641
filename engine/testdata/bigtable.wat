;; A table whose declared minimum is over the default limit of 100,000 elements.
(module (table 200000 funcref))
