package fuzz

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kobako/kobako/engine"
)

// cacheFixture is a module of FuzzMeteredDifferential's generator (loops, calls, memory, globals),
// the entry an engine with a cache directory writes for it, and how it runs without a cache.
type cacheFixture struct {
	mod  []byte
	dir  string // the cache directory
	path string // the module's entry in it
	good []byte // the entry as the engine writes it
	want cacheOutcome
}

type cacheOutcome struct {
	result uint64
	fuel   uint64
	err    string
}

var cacheMu sync.Mutex // the fixture's file is one per process

// runModule compiles mod on e and calls its "run" in a fresh store. A failed compile is
// returned as an error, a failed instantiation or call in the outcome.
func runModule(e *engine.Engine, mod []byte) (cacheOutcome, error) {
	ctx := context.Background()
	m, err := e.Compile(ctx, mod)
	if err != nil {
		return cacheOutcome{}, err
	}
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		return cacheOutcome{}, err
	}
	defer s.Close(ctx)
	in, err := s.Instantiate(ctx, m, nil)
	if err != nil {
		return cacheOutcome{err: "instantiate: " + err.Error()}, nil
	}
	var o cacheOutcome
	res, err := in.Call(ctx, "run")
	if err != nil {
		o.err = err.Error()
	} else {
		o.result = res[0]
	}
	o.fuel = s.FuelConsumed()
	return o, nil
}

func setupCacheFixture(dir string) (cacheFixture, error) {
	var fx cacheFixture
	fx.mod = genProgram([]byte("\x01\x05\x07\x01\x01\x01\x07\x03\x01\x05\x02\x01\x01\x07\x00\x00\x04\x03\x05\x00\x05\x01\x03\x02\x00\x06\x03\x00\x01\x00\x00\x00\x00\x00\x09\x03\x02\x00")).encode()
	ctx := context.Background()
	plain, err := engine.New(ctx, engine.Config{})
	if err != nil {
		return fx, err
	}
	defer plain.Close(ctx)
	if fx.want, err = runModule(plain, fx.mod); err != nil {
		return fx, err
	}
	fx.dir = dir
	e, err := engine.New(ctx, engine.Config{CacheDir: fx.dir, CacheMinModuleSize: -1})
	if err != nil {
		return fx, err
	}
	defer e.Close(ctx)
	if _, err := runModule(e, fx.mod); err != nil {
		return fx, err
	}
	ents, err := os.ReadDir(filepath.Join(fx.dir, "prepared"))
	if err != nil || len(ents) != 1 {
		return fx, err
	}
	fx.path = filepath.Join(fx.dir, "prepared", ents[0].Name())
	fx.good, err = os.ReadFile(fx.path)
	return fx, err
}

// FuzzPreparedCacheFile puts the input where an engine with Config.CacheDir finds the entry of a
// module it compiles, and compiles the module. The first byte picks how: 0 writes the rest as
// the file; 1 writes it as a payload behind a valid header (the right key, length and checksum),
// which reaches the metadata decoder; 2 changes the engine's own file at the offsets and to the
// values the rest names in pairs. Whatever the file, the compile must succeed. Unless the input
// carries a checksum of its own making (1), the module must run exactly as without a cache (the
// same result and fuel), the file must be rejected unless it is the engine's own, and rewritten.
// A payload behind a valid checksum is trusted by design when it decodes and its module passes
// the bounded decoder (the format's checksum catches corruption, not forgery), so for mode 1 only
// the absence of failures is checked, and of huge allocations, which a lost worker shows.
func FuzzPreparedCacheFile(f *testing.F) {
	fx, err := setupCacheFixture(f.TempDir())
	if err != nil || fx.good == nil {
		f.Fatalf("setup: %v", err)
	}
	f.Add([]byte{0})
	f.Add(append([]byte{0}, fx.good...))
	f.Add(append([]byte{1}, fx.good[88:]...))
	f.Add(append([]byte{1}, fx.good[88:120]...))
	f.Add([]byte{2, 89, 0x80, 90, 0xff})
	f.Add([]byte{2, 50, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cacheMu.Lock()
		defer cacheMu.Unlock()
		var file []byte
		switch data[0] % 3 {
		case 0:
			file = data[1:]
		case 1:
			file = append(bytes.Clone(fx.good[:88]), data[1:]...)
			binary.LittleEndian.PutUint64(file[48:], uint64(len(data)-1))
			sum := sha256.Sum256(data[1:])
			copy(file[56:88], sum[:])
		case 2:
			file = bytes.Clone(fx.good)
			for i := 1; i+1 < len(data); i += 2 {
				file[int(data[i])*len(file)/256] = data[i+1]
			}
		}
		if err := os.WriteFile(fx.path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		e, err := engine.New(ctx, engine.Config{CacheDir: fx.dir, CacheMinModuleSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close(ctx)
		got, err := runModule(e, fx.mod)
		if err != nil {
			t.Fatalf("a cache file made the compile fail: %v", err)
		}
		if data[0]%3 == 1 {
			return
		}
		if got != fx.want {
			t.Fatalf("with the file %x: %+v, without a cache %+v", file, got, fx.want)
		}
		st := e.CacheStats()
		own := bytes.Equal(file, fx.good)
		if own && st.Hits != 1 || !own && (st.Rejected != 1 || st.Prepared != 1) {
			t.Fatalf("own file %v: %+v", own, st)
		}
		if now, err := os.ReadFile(fx.path); err != nil || !bytes.Equal(now, fx.good) {
			t.Fatalf("the entry was not rewritten (%v)", err)
		}
	})
}
