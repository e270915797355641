;; Imports from "" and from the name the engine gives "": refused, the two would become one.
(module
  (import "" "f" (func))
  (import "kobako:empty" "g" (func)))
