;; expect: no resource named `r` precedes it
(component (import "[static]r.f" (func)))
