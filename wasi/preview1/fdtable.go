package preview1

import (
	"io"

	"github.com/kobako/kobako/wasi"
)

type fdKind uint8

const (
	kindStdin  fdKind = iota + 1 // the guest's stdin (wasi.Input)
	kindWriter                   // stdout or stderr (an io.Writer)
	kindFile                     // a wasi.File
	kindDir                      // a wasi.Dir
)

// fdEntry is one open descriptor.
type fdEntry struct {
	kind       fdKind
	w          io.Writer
	file       wasi.File
	dir        wasi.Dir
	preopen    string // the guest's name for a preopened directory
	isPreopen  bool
	fdflags    uint16
	rights     uint64
	inheriting uint64
	readdir    *readdirState
}

func (e *fdEntry) close() error {
	var err error
	switch e.kind {
	case kindFile:
		err = e.file.Close()
	case kindDir:
		if e.readdir != nil && e.readdir.r != nil {
			e.readdir.r.Close()
		}
		err = e.dir.Close()
	}
	return err
}

// filetype is what fd_fdstat_get and fd_filestat_get report for a descriptor that is not a file or
// directory. Stdio is a character device, as a terminal is: wasi-libc then treats it as a TTY
// (line-buffered output), which suits interactive and line-based protocols alike.
func (e *fdEntry) filetype() wasi.Filetype {
	switch e.kind {
	case kindDir:
		return wasi.FiletypeDirectory
	case kindFile:
		if st, err := e.file.Stat(); err == nil {
			return st.Type
		}
		return wasi.FiletypeUnknown
	}
	return wasi.FiletypeCharacterDevice
}

// fdTable maps descriptor numbers to entries. New descriptors take the lowest free number, as in
// POSIX; the table never grows past limit.
type fdTable struct {
	entries []*fdEntry
	limit   int
}

func (t *fdTable) get(fd uint32) *fdEntry {
	if uint64(fd) >= uint64(len(t.entries)) {
		return nil
	}
	return t.entries[fd]
}

// add stores e under the lowest free number, or returns EMFILE.
func (t *fdTable) add(e *fdEntry) (uint32, wasi.Errno) {
	for i, x := range t.entries {
		if x == nil {
			t.entries[i] = e
			return uint32(i), wasi.ESUCCESS
		}
	}
	if len(t.entries) >= t.limit {
		return 0, wasi.EMFILE
	}
	t.entries = append(t.entries, e)
	return uint32(len(t.entries) - 1), wasi.ESUCCESS
}

// hasRoom reports whether add would succeed, so path_open can refuse before opening anything.
func (t *fdTable) hasRoom() bool {
	if len(t.entries) < t.limit {
		return true
	}
	for _, x := range t.entries {
		if x == nil {
			return true
		}
	}
	return false
}

func (t *fdTable) remove(fd uint32) *fdEntry {
	e := t.get(fd)
	if e != nil {
		t.entries[fd] = nil
	}
	return e
}

// Rights, as WASI preview 1 numbers them.
const (
	rightFdDatasync uint64 = 1 << iota
	rightFdRead
	rightFdSeek
	rightFdFdstatSetFlags
	rightFdSync
	rightFdTell
	rightFdWrite
	rightFdAdvise
	rightFdAllocate
	rightPathCreateDirectory
	rightPathCreateFile
	rightPathLinkSource
	rightPathLinkTarget
	rightPathOpen
	rightFdReaddir
	rightPathReadlink
	rightPathRenameSource
	rightPathRenameTarget
	rightPathFilestatGet
	rightPathFilestatSetSize
	rightPathFilestatSetTimes
	rightFdFilestatGet
	rightFdFilestatSetSize
	rightFdFilestatSetTimes
	rightPathSymlink
	rightPathRemoveDirectory
	rightPathUnlinkFile
	rightPollFdReadwrite
	rightSockShutdown
	rightSockAccept
)

// What each kind of descriptor can do. fd_allocate is never supported, so no descriptor has
// the right.
const (
	fileRights = rightFdDatasync | rightFdRead | rightFdSeek | rightFdFdstatSetFlags | rightFdSync |
		rightFdTell | rightFdWrite | rightFdAdvise | rightFdFilestatGet | rightFdFilestatSetSize |
		rightFdFilestatSetTimes | rightPollFdReadwrite
	fileWriteRights = rightFdDatasync | rightFdWrite | rightFdFilestatSetSize
	dirRights       = rightFdFdstatSetFlags | rightFdSync | rightPathCreateDirectory | rightPathCreateFile |
		rightPathLinkSource | rightPathLinkTarget | rightPathOpen | rightFdReaddir | rightPathReadlink |
		rightPathRenameSource | rightPathRenameTarget | rightPathFilestatGet | rightPathFilestatSetSize |
		rightPathFilestatSetTimes | rightFdFilestatGet | rightFdFilestatSetTimes | rightPathSymlink |
		rightPathRemoveDirectory | rightPathUnlinkFile
	stdinRights  = rightFdRead | rightFdFdstatSetFlags | rightFdFilestatGet | rightPollFdReadwrite
	stdoutRights = rightFdWrite | rightFdDatasync | rightFdSync | rightFdFdstatSetFlags |
		rightFdFilestatGet | rightPollFdReadwrite
)

// fdflags.
const (
	fdflagAppend   uint16 = 1 << 0
	fdflagDsync    uint16 = 1 << 1
	fdflagNonblock uint16 = 1 << 2
	fdflagRsync    uint16 = 1 << 3
	fdflagSync     uint16 = 1 << 4
	fdflagsAll            = fdflagAppend | fdflagDsync | fdflagNonblock | fdflagRsync | fdflagSync
	fdflagsSyncs          = fdflagDsync | fdflagRsync | fdflagSync
)
