;; Out of scope: async function types
(component (type (func async (param "x" u32))))
