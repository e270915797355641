;; Threads (shared memory) are outside WebAssembly 2.0: refused with the feature named.
(module (memory 1 1 shared))
