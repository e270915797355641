package mcpserve

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// DefaultWatchInterval is how often Watch looks for changes when given 0.
const DefaultWatchInterval = time.Second

// Watch reloads the server whenever a package or the plugins directory changes, until ctx is done.
// It polls every interval (DefaultWatchInterval when 0): polling sees changes on every file system,
// network and container mounts included, and a reload waits until a change has stood for one
// interval, so a plugin half-way through installation is not loaded. Reload errors are logged and
// the old tools stay.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	last := s.fingerprint()
	pending := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp := s.fingerprint()
		if fp != last {
			last, pending = fp, true
			continue
		}
		if !pending {
			continue
		}
		pending = false
		changed, err := s.Reload(ctx)
		switch {
		case err != nil:
			s.log.Error("reload failed; the previous tools stay", "error", err)
		case changed:
			s.log.Info("tools reloaded", "tools", len(s.Tools()))
		}
	}
}

// maxWatchEntries bounds the walk of one watched tree, so that a huge directory cannot make each
// poll unbounded.
const maxWatchEntries = 10000

// fingerprint hashes the names, sizes and modification times of everything the sources load from.
func (s *Server) fingerprint() string {
	h := sha256.New()
	walk := func(root string) {
		n := 0
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if n++; n > maxWatchEntries {
				return filepath.SkipAll
			}
			if err != nil {
				fmt.Fprintf(h, "%s\x00error\x00", p)
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00%v\x00", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
			return nil
		})
	}
	for _, p := range s.opts.Packages {
		if _, err := os.Stat(p.Path); err != nil {
			fmt.Fprintf(h, "%s\x00missing\x00", p.Path)
			continue
		}
		walk(p.Path)
	}
	if s.opts.Plugins != nil && s.opts.Plugins.Dir() != "" {
		walk(s.opts.Plugins.Dir())
	}
	return string(h.Sum(nil))
}
