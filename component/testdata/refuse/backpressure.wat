;; Out of scope: the backpressure.inc built-in (async)
(component (core func (canon backpressure.inc)))
