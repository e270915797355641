// Package preview1 is kobako's wasi_snapshot_preview1 host: the 46 functions of WASI preview 1,
// written for kobako's engine and sandbox (package wasi) rather than taken from wazero, because a
// plugin host needs what wazero's version does not do: a write budget (EDQUOT), fd_allocate
// refused, and host directories that symbolic links cannot leave.
//
// # Use
//
// Module is defined once and shared by every store; the state of one guest lives in a Host that
// Bind attaches to its store:
//
//	h, err := preview1.Bind(store, preview1.Config{Args: []string{"tool"}, Stdout: &out})
//	defer h.Close()
//	inst, err := store.Instantiate(ctx, mod, engine.Imports{preview1.ModuleName: preview1.Module})
//	_, err = inst.Call(ctx, "_start") // *engine.ExitError after proc_exit
//
// Run does all of this for a command.
//
// # What the guest gets
//
//   - args, environment, stdio: stdin is any io.Reader; a blocked read ends with the call's
//     deadline (see wasi.Input: a wasi.PollableReader or an in-memory reader is read directly,
//     any other in a goroutine); stdout and stderr are io.Writers.
//     Stdio descriptors report themselves as character devices.
//   - Clocks: realtime and monotonic from Config.Clock (injectable; wasi.FakeClock makes runs
//     reproducible and sleeps instant); the CPU-time clocks are EINVAL. Randomness from
//     Config.Random (crypto/rand by default).
//   - Preopened directories as descriptors 3, 4, … in the order given, from host directories
//     (through os.Root) or fs.FS trees (always read-only), each read-only on request.
//   - poll_oneoff on clocks and descriptors; files and stdout are always ready, stdin when data
//     has arrived.
//   - sock_accept, sock_recv, sock_send and sock_shutdown are linked, but no socket exists:
//     ENOTSOCK for an open descriptor, EBADF otherwise. proc_raise is ENOSYS.
//
// # Sandbox and limits
//
//   - A path that is absolute, or leaves its directory by ".." or a symbolic link, is EPERM
//     (wasmtime's answer, and wasi:filesystem's not-permitted); so is every change to a read-only
//     preopen. Symbolic links a guest creates must be relative and stay inside the preopen.
//   - Writes to files draw on a write budget (Config.WriteBudget, default 1 GiB per store): a
//     write that does not fit, or one call writing more than Config.MaxWriteSize (1 GiB by
//     default, as ABI 1 requires), fails with EDQUOT and writes nothing. Growing a file with
//     fd_filestat_set_size, or writing past its end, counts the gap too. fd_allocate is ENOTSUP.
//   - Every guest pointer and length is checked (EFAULT, with nothing written); iovec counts are at
//     most MaxIovecs, poll subscriptions at most MaxSubscriptions, paths at most wasi.MaxPathLen
//     bytes, open descriptors at most Config.MaxHandles (EMFILE). Output pointers are checked
//     before a call acts, so a bad pointer never leaves an opened file behind.
//   - proc_exit ends the call through engine.Caller.Exit.
package preview1
