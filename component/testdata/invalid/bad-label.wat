;; expect: is not a kebab-case label
(component (type (enum "not_kebab")))
