;; Refused: relaxed SIMD.
(module
  (memory (export "memory") 1)
  (func (export "_start") (drop (f32x4.relaxed_madd (v128.const i32x4 0 0 0 0) (v128.const i32x4 0 0 0 0) (v128.const i32x4 0 0 0 0))))
)
