;; A memory whose declared minimum (512 MiB) is over the default limit of 256 MiB.
(module (memory 8192))
