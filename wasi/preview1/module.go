package preview1

import "github.com/kobako/kobako/engine"

// ModuleName is the import module name of WASI preview 1.
const ModuleName = "wasi_snapshot_preview1"

// Module is the wasi_snapshot_preview1 host module: all 46 functions of the snapshot, with the
// signatures of witx/wasi_snapshot_preview1.witx. Import it into any store that Bind was called
// for:
//
//	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module})
//
// A function called in a store without Bind traps with ErrNotBound.
var Module = &engine.HostModule{Name: ModuleName, Funcs: functions()}

func functions() []engine.HostFunc {
	return []engine.HostFunc{
		fn("args_get", params("ii"), argsGet),
		fn("args_sizes_get", params("ii"), argsSizesGet),
		fn("environ_get", params("ii"), environGet),
		fn("environ_sizes_get", params("ii"), environSizesGet),
		fn("clock_res_get", params("ii"), clockResGet),
		fn("clock_time_get", params("iIi"), clockTimeGet),
		fn("fd_advise", params("iIIi"), fdAdvise),
		fn("fd_allocate", params("iII"), fdAllocate),
		fn("fd_close", params("i"), fdClose),
		fn("fd_datasync", params("i"), fdDatasync),
		fn("fd_fdstat_get", params("ii"), fdFdstatGet),
		fn("fd_fdstat_set_flags", params("ii"), fdFdstatSetFlags),
		fn("fd_fdstat_set_rights", params("iII"), fdFdstatSetRights),
		fn("fd_filestat_get", params("ii"), fdFilestatGet),
		fn("fd_filestat_set_size", params("iI"), fdFilestatSetSize),
		fn("fd_filestat_set_times", params("iIIi"), fdFilestatSetTimes),
		fn("fd_pread", params("iiiIi"), fdPread),
		fn("fd_prestat_get", params("ii"), fdPrestatGet),
		fn("fd_prestat_dir_name", params("iii"), fdPrestatDirName),
		fn("fd_pwrite", params("iiiIi"), fdPwrite),
		fn("fd_read", params("iiii"), fdRead),
		fn("fd_readdir", params("iiiIi"), fdReaddir),
		fn("fd_renumber", params("ii"), fdRenumber),
		fn("fd_seek", params("iIii"), fdSeek),
		fn("fd_sync", params("i"), fdSync),
		fn("fd_tell", params("ii"), fdTell),
		fn("fd_write", params("iiii"), fdWrite),
		fn("path_create_directory", params("iii"), pathCreateDirectory),
		fn("path_filestat_get", params("iiiii"), pathFilestatGet),
		fn("path_filestat_set_times", params("iiiiIIi"), pathFilestatSetTimes),
		fn("path_link", params("iiiiiii"), pathLink),
		fn("path_open", params("iiiiiIIii"), pathOpen),
		fn("path_readlink", params("iiiiii"), pathReadlink),
		fn("path_remove_directory", params("iii"), pathRemoveDirectory),
		fn("path_rename", params("iiiiii"), pathRename),
		fn("path_symlink", params("iiiii"), pathSymlink),
		fn("path_unlink_file", params("iii"), pathUnlinkFile),
		fn("poll_oneoff", params("iiii"), pollOneoff),
		procExitFunc(),
		fn("proc_raise", params("i"), procRaise),
		fn("sched_yield", nil, schedYield),
		fn("random_get", params("ii"), randomGet),
		fn("sock_accept", params("iii"), sockAccept),
		fn("sock_recv", params("iiiiii"), sockRecv),
		fn("sock_send", params("iiiii"), sockSend),
		fn("sock_shutdown", params("ii"), sockShutdown),
	}
}
