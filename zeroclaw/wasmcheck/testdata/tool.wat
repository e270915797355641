;; The smallest component with the exports of the zeroclaw:plugin tool-plugin world: an instance
;; for plugin-info and one for tool, each exporting a function lifted from a core module.
;; Rebuild with build.sh.
(component
  (core module $m
    (memory (export "memory") 1)
    (func (export "name") (result i32) (i32.const 0)))
  (core instance $i (instantiate $m))
  (func $name (result string) (canon lift (core func $i "name") (memory (core memory $i "memory"))))
  (instance $info (export "plugin-name" (func $name)) (export "plugin-version" (func $name)))
  (instance $tool (export "name" (func $name)) (export "description" (func $name)))
  (export "zeroclaw:plugin/plugin-info@0.1.0" (instance $info))
  (export "zeroclaw:plugin/tool@0.1.0" (instance $tool)))
