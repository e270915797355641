package subako

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"

	"github.com/klauspost/compress/zip"

	"github.com/kobako/kobako/internal/boundedfile"
)

// Caps on a package zip. Sizes are checked against what is actually decompressed, not against the
// sizes the archive claims, so a zip bomb stops at the cap.
const (
	MaxZipEntries      = 4096
	MaxPackageBytes    = 256 << 20
	MaxZipEntryNameLen = 1024
)

// readZip reads a package zip into memory and returns its files as an fs.FS rooted at the
// package: either the archive's root, or its single top-level directory when the manifest is
// there rather than at the root (a zip "of the directory"). Every entry name must be a relative
// slash-separated path without "." or ".." elements, backslashes or duplicates; symbolic links and
// other special files are refused; there are at most MaxZipEntries entries and MaxPackageBytes
// decompressed bytes in total, the manifest at most MaxManifestBytes and module.wasm at most
// MaxModuleBytes.
func readZip(ra io.ReaderAt, size int64) (fs.FS, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("subako: zip: %w: %v", ErrPackage, err)
	}
	if len(zr.File) > MaxZipEntries {
		return nil, fmt.Errorf("subako: zip: %w: %d entries, more than %d", ErrPackage, len(zr.File), MaxZipEntries)
	}
	files := fstest.MapFS{}
	var total int64
	for _, f := range zr.File {
		name := f.Name
		if len(name) > MaxZipEntryNameLen {
			return nil, fmt.Errorf("subako: zip: %w: an entry name is %d bytes long", ErrPackage, len(name))
		}
		isDir := strings.HasSuffix(name, "/") || f.Mode().IsDir()
		clean := strings.TrimSuffix(name, "/")
		if strings.Contains(name, "\\") || !fs.ValidPath(clean) || clean == "." {
			return nil, fmt.Errorf("subako: zip: %w: entry %q is not a plain relative path inside the package", ErrPackage, name)
		}
		if _, dup := files[clean]; dup {
			return nil, fmt.Errorf("subako: zip: %w: entry %q appears twice", ErrPackage, clean)
		}
		if isDir {
			files[clean] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
			continue
		}
		if !f.Mode().IsRegular() {
			return nil, fmt.Errorf("subako: zip: %w: entry %q is a %s, not a regular file", ErrPackage, clean, boundedfile.Kind(f.Mode()))
		}
		// Each entry stops at the cap of what it is (the manifest's is 64 KiB), not at what is
		// left of the package's, so a bomb named subako-package.json costs 64 KiB, not 256 MiB.
		limit, what, sentinel := int64(MaxPackageBytes)-total, "the whole package", ErrPackage
		if isManifestEntry(clean) {
			limit, what, sentinel = MaxManifestBytes, "a manifest", ErrManifest
		} else if path.Base(clean) == ModuleFile && limit > MaxModuleBytes {
			limit, what = MaxModuleBytes, "a module"
		}
		capErr := fmt.Errorf("subako: zip: %w: entry %q decompresses past the cap of %d bytes for %s", sentinel, clean, limit, what)
		// The size the archive claims is not trusted to be small, but a claim over the cap is
		// refused without decompressing anything.
		if f.UncompressedSize64 > uint64(limit) {
			return nil, capErr
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("subako: zip: %w: entry %q: %v", ErrPackage, clean, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, limit+1))
		rc.Close()
		if int64(len(b)) > limit {
			return nil, capErr
		}
		if err != nil {
			return nil, fmt.Errorf("subako: zip: %w: entry %q: %v", ErrPackage, clean, err)
		}
		total += int64(len(b))
		files[clean] = &fstest.MapFile{Data: b, Mode: 0o444, ModTime: f.Modified}
	}
	// A file and a directory of the same name ("a" and "a/b") cannot both exist.
	for name := range files {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if f, ok := files[dir]; ok && !f.Mode.IsDir() {
				return nil, fmt.Errorf("subako: zip: %w: %q is both a file and a directory", ErrPackage, dir)
			}
		}
	}
	if _, ok := files[ManifestFile]; ok {
		return files, nil
	}
	tops := map[string]bool{}
	for name := range files {
		top, _, _ := strings.Cut(name, "/")
		tops[top] = true
	}
	if len(tops) == 1 {
		for top := range tops {
			if _, ok := files[top+"/"+ManifestFile]; ok {
				sub, err := fs.Sub(files, top)
				if err != nil {
					return nil, fmt.Errorf("subako: zip: %w: %v", ErrPackage, err)
				}
				return sub, nil
			}
		}
	}
	return nil, fmt.Errorf("subako: zip: %w: no %s at the root of the archive or of its single top-level directory", ErrManifest, ManifestFile)
}

// isManifestEntry reports whether the entry name is where readZip looks for the manifest: the
// archive's root or a top-level directory.
func isManifestEntry(name string) bool {
	dir, base := path.Split(name)
	return base == ManifestFile && strings.Count(dir, "/") <= 1
}
