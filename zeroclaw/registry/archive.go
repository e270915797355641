package registry

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zip"

	"github.com/kobako/kobako/zeroclaw/internal/errs"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// Extraction limits.
const (
	// MaxExtractedBytes caps the total (and so each entry's) uncompressed
	// size, the reference's MAX_PLUGIN_EXTRACTED_BYTES.
	MaxExtractedBytes = 50 * 1024 * 1024
	// MaxArchiveEntries caps how many entries an archive may hold, so a
	// small archive cannot create an unbounded number of files.
	MaxArchiveEntries = 10_000
)

// checkEntryName refuses a name that could leave the extraction directory:
// a leading '/' or '\', a drive prefix "X:", any ".." component (splitting
// on both slashes), a NUL byte, or an empty name.
func checkEntryName(name string) error {
	unsafe := name == "" ||
		strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) ||
		(len(name) >= 2 && name[1] == ':' && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) ||
		strings.ContainsRune(name, 0)
	if !unsafe {
		for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
			if part == ".." {
				unsafe = true
				break
			}
		}
	}
	if unsafe {
		return errs.New(ErrUnsafeArchive, "plugin archive contains unsafe path: %s", name)
	}
	return nil
}

// ExtractZip unpacks the zip archive in r (size bytes) into dest, which must
// be an empty directory the caller owns. Every entry is checked before
// anything is written: unsafe names, symlinks and other non-regular
// entries, duplicate paths and more than MaxArchiveEntries entries are
// refused, and the declared uncompressed sizes must fit limit. While
// writing, the actual bytes are counted against limit too, so a lying header
// cannot inflate past it.
func ExtractZip(r io.ReaderAt, size int64, dest string, limit int64) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return errs.New(ErrUnsafeArchive, "plugin archive is not a readable zip: %v", err)
	}
	if len(zr.File) > MaxArchiveEntries {
		return errs.New(ErrUnsafeArchive, "plugin archive has %d entries, more than %d", len(zr.File), MaxArchiveEntries)
	}
	tooLarge := errs.New(ErrTooLarge, "plugin archive exceeds extracted size limit of %d bytes", limit)
	seen := make(map[string]bool, len(zr.File))
	var declared uint64
	for _, f := range zr.File {
		if err := checkEntryName(f.Name); err != nil {
			return err
		}
		mode := f.Mode()
		if mode&fs.ModeSymlink != 0 {
			return errs.New(ErrUnsafeArchive, "plugin archive contains a symlink: %s", f.Name)
		}
		isDir := strings.HasSuffix(f.Name, "/") || mode.IsDir()
		if !isDir && !mode.IsRegular() {
			return errs.New(ErrUnsafeArchive, "plugin archive entry %s is not a regular file (%v)", f.Name, mode.Type())
		}
		clean := path.Clean(strings.TrimSuffix(f.Name, "/"))
		if clean == "." {
			if isDir {
				continue
			}
			return errs.New(ErrUnsafeArchive, "plugin archive contains unsafe path: %s", f.Name)
		}
		if seen[clean] {
			return errs.New(ErrUnsafeArchive, "plugin archive contains %s more than once", clean)
		}
		seen[clean] = true
		if !isDir {
			if f.UncompressedSize64 > uint64(limit) || declared+f.UncompressedSize64 > uint64(limit) {
				return tooLarge
			}
			declared += f.UncompressedSize64
		}
	}
	var written int64
	for _, f := range zr.File {
		clean := path.Clean(strings.TrimSuffix(f.Name, "/"))
		if clean == "." {
			continue
		}
		out := filepath.Join(dest, filepath.FromSlash(clean))
		if strings.HasSuffix(f.Name, "/") || f.Mode().IsDir() {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return errs.New(ErrUnsafeArchive, "extracting plugin archive: %v", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return errs.New(ErrUnsafeArchive, "extracting plugin archive: %v", err)
		}
		n, err := extractFile(f, out, limit-written)
		written += n
		if errors.Is(err, errEntryTooLarge) {
			return tooLarge
		}
		if err != nil {
			return errs.New(ErrUnsafeArchive, "extracting plugin archive entry %s: %v", f.Name, err)
		}
	}
	return nil
}

var errEntryTooLarge = errors.New("entry too large")

func extractFile(f *zip.File, out string, remaining int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, io.LimitReader(rc, remaining+1))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	if n > remaining {
		return n, errEntryTooLarge
	}
	return n, nil
}

// FindManifestDir returns the one directory under root (root itself or any
// nested directory) holding a manifest.toml file; zero or several are
// refused. Symlinks are not followed.
func FindManifestDir(root string) (string, error) {
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if fi, err := os.Lstat(filepath.Join(p, manifest.FileName)); err == nil && fi.Mode().IsRegular() {
				found = append(found, p)
			}
		}
		return nil
	})
	if err != nil {
		return "", errs.New(ErrManifest, "searching plugin archive for manifest.toml: %v", err)
	}
	sort.Strings(found)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", errs.New(ErrManifest, "plugin archive does not contain manifest.toml")
	}
	return "", errs.New(ErrManifest, "plugin archive contains multiple manifest.toml files")
}

// CheckIdentity requires an archive's manifest to be the entry's name and
// version.
func CheckIdentity(e Entry, name, version string) error {
	if name != e.Name {
		return errs.New(ErrManifest, "plugin archive manifest name '%s' does not match registry name '%s'", name, e.Name)
	}
	if version != e.Version {
		return errs.New(ErrManifest, "plugin archive manifest version '%s' does not match registry version '%s'", version, e.Version)
	}
	return nil
}
