;; Out of scope: the task.return built-in (async)
(component (core func (canon task.return (result u32))))
