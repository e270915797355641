;; A start function that never returns: instantiation itself must be stopped.
(module
  (func $spin (loop $l (br $l)))
  (start $spin))
