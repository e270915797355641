// Package wasi holds the sandbox pieces that kobako's WASI hosts share: the WASI error numbers
// (Errno), the file-system view a guest is given (Dir and File, over host directories through
// os.Root or over any fs.FS), the write budget that caps what a guest may write (Budget), the
// clocks it sees (Clock), a context-aware reader for its stdin (Input), and the directories a
// guest starts with (Preopen), which preview1.Config and preview2.Config both list.
//
// It uses only the standard library, so that both wasi/preview1 and wasi/preview2 build on it.
//
// # Sandbox rules
//
// A guest reaches files only through Dir capabilities. Paths are relative, use '/' and are
// checked by CheckPath; an absolute path, a ".." that climbs above the directory, or a symbolic
// link that leads out of the tree fails with EPERM (wasmtime's choice, and wasi:filesystem's
// `not-permitted`). A read-only tree refuses every change with EPERM as well. Writes are charged
// to a Budget: a write that would pass it, or a single write call larger than its per-call cap
// (1 GiB by default, as ABI 1 requires), fails with EDQUOT and writes nothing.
package wasi
