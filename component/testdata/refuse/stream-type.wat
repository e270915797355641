;; Out of scope: the stream type (async)
(component (type (stream u8)))
