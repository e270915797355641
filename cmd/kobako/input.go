package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kobako/kobako/engine"
)

// maxWasmFileBytes is the largest FILE.wasm that run and inspect read: the decoder refuses a
// larger module anyway, so reading past it would only spend memory (/dev/zero has no end).
var maxWasmFileBytes = int64(engine.DefaultDecodeLimits().ModuleSize)

// readWasmFile reads name whole, refusing a file that is not a regular file (a FIFO, a device, a
// directory) or that is larger than max, before reading any of it.
func readWasmFile(name string, max int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(name, fi, max); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should name become a FIFO between the Stat and the open, opening it must not
	// wait for a writer; the second check below then refuses it.
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(name, fi, max); err != nil {
		return nil, err
	}
	// The size may still grow while it is read; the limit holds whatever Stat said.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes, the largest module kobako reads", name, max)
	}
	return b, nil
}

func checkRegular(name string, fi os.FileInfo, max int64) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not a .wasm file", name)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (a %s); give a .wasm file", name, fileKind(fi.Mode()))
	case fi.Size() > max:
		return fmt.Errorf("%s is %d bytes, larger than %d, the largest module kobako reads", name, fi.Size(), max)
	}
	return nil
}

// fileKind names a non-regular file's type for a message.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}
