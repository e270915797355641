package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/engine"
)

// fuelProfileKey carries the profile of a command run with --fuel-profile, so that the engines
// the command makes are made to report fuel per function (see newEngine).
type fuelProfileKey struct{}

// withFuelProfile returns a context whose engines profile functions and whose calls report to p.
func withFuelProfile(ctx context.Context, p *engine.FuelProfile) context.Context {
	return engine.WithFuelListener(context.WithValue(ctx, fuelProfileKey{}, p), p)
}

func fuelProfileFrom(ctx context.Context) *engine.FuelProfile {
	p, _ := ctx.Value(fuelProfileKey{}).(*engine.FuelProfile)
	return p
}

// checkProfilePath refuses a --fuel-profile path that exists (a command never overwrites a file
// it did not create) or whose directory does not, before anything runs.
func checkProfilePath(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("--fuel-profile %s: the file exists; remove it or name another", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--fuel-profile %s: %v", path, err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--fuel-profile %s: no directory %s", path, filepath.Dir(path))
	}
	return nil
}

// writeFuelProfile writes p to path, through a temporary file renamed into place, so that an
// interrupted write leaves no half a profile.
func writeFuelProfile(p *engine.FuelProfile, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--fuel-profile: %v", err)
	}
	_, err = p.WriteTo(tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp makes 0600; a profile is as readable as any file
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Link, not rename: it fails instead of replacing a file that appeared since the check.
		err = os.Link(tmp.Name(), path)
	}
	os.Remove(tmp.Name())
	if err != nil {
		return fmt.Errorf("--fuel-profile %s: %v", path, err)
	}
	return nil
}
