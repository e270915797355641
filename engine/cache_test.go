package engine_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kobako/kobako/engine"
)

// cacheRun compiles fixture name in a fresh engine on dir, calls export(arg) in a fresh store
// with the given table limit (0: the default) and returns the result, the fuel it used, the
// module's imports and exports, and the engine's cache counters.
type cacheRun struct {
	result  uint64
	fuel    uint64
	imports []engine.ImportDesc
	exports []engine.ExportDesc
	stats   engine.CacheStats
}

func runCached(t *testing.T, cfg engine.Config, name, export string, arg uint64, tableLimit uint32) cacheRun {
	t.Helper()
	ctx := context.Background()
	if cfg.CacheDir != "" && cfg.CacheMinModuleSize == 0 {
		cfg.CacheMinModuleSize = -1 // the fixtures are small
	}
	e, err := engine.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	m, err := e.Compile(ctx, fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	lim := engine.DefaultLimits()
	if tableLimit != 0 {
		lim.TableElements = tableLimit
	}
	s, err := e.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	in, err := s.Instantiate(ctx, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Call(ctx, export, arg)
	if err != nil {
		t.Fatalf("%s(%d): %v", export, arg, err)
	}
	return cacheRun{result: res[0], fuel: s.FuelConsumed(), imports: m.Imports(), exports: m.Exports(), stats: e.CacheStats()}
}

// cacheFiles lists the entries (not temporary files) of a cache directory.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "prepared"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
			continue
		}
		out = append(out, filepath.Join(dir, "prepared", e.Name()))
	}
	return out
}

func sameRun(t *testing.T, what string, got, want cacheRun) {
	t.Helper()
	if got.result != want.result || got.fuel != want.fuel {
		t.Errorf("%s: result %d and fuel %d, want %d and %d", what, got.result, got.fuel, want.result, want.fuel)
	}
	if !reflect.DeepEqual(got.imports, want.imports) || !reflect.DeepEqual(got.exports, want.exports) {
		t.Errorf("%s: imports %v exports %v, want %v %v", what, got.imports, got.exports, want.imports, want.exports)
	}
}

// TestPreparedCacheWarmSkipsWork: a second engine on the same directory reads the prepared
// module instead of preparing it (its Prepared counter stays 0), and it runs the same.
func TestPreparedCacheWarmSkipsWork(t *testing.T) {
	dir := t.TempDir()
	want := runCached(t, engine.Config{}, "fib", "fib", 20, 0)
	if want.fuel != fibCost(20) || want.stats.Prepared != 1 {
		t.Fatalf("uncached run: %+v", want)
	}
	cold := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0)
	sameRun(t, "cold", cold, want)
	if s := cold.stats; s != (engine.CacheStats{Prepared: 1, Misses: 1, Stored: 1}) {
		t.Errorf("cold: %+v", s)
	}
	warm := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0)
	sameRun(t, "warm", warm, want)
	if s := warm.stats; s != (engine.CacheStats{Hits: 1}) {
		t.Errorf("warm: %+v, want only a hit (nothing prepared)", s)
	}
	if files := cacheFiles(t, dir); len(files) != 1 {
		t.Errorf("cache files: %v", files)
	}
}

// TestPreparedCacheKey: whatever changes the rewrite or the decode limits is another entry; a
// table limit that needs a variant of the module is one too, and is cached like the first.
func TestPreparedCacheKey(t *testing.T) {
	dir := t.TempDir()
	base := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 10, 0)
	for _, tc := range []struct {
		name string
		cfg  engine.Config
	}{
		{"profiled functions", engine.Config{CacheDir: dir, ProfileFunctions: true}},
		{"decode limits", engine.Config{CacheDir: dir, DecodeLimits: engine.DecodeLimits{Functions: 1000}}},
	} {
		got := runCached(t, tc.cfg, "fib", "fib", 10, 0)
		if got.stats.Hits != 0 || got.stats.Stored != 1 {
			t.Errorf("%s: %+v, want a new entry", tc.name, got.stats)
		}
		if got.result != base.result {
			t.Errorf("%s: fib(10) = %d", tc.name, got.result)
		}
	}
	if files := cacheFiles(t, dir); len(files) != 3 {
		t.Errorf("cache files: %v", files)
	}
	// "tables" declares a table that may grow: a store with another limit instantiates a
	// variant rewritten for it, prepared once and then read from the cache.
	vdir := t.TempDir()
	cold := runCached(t, engine.Config{CacheDir: vdir}, "tables", "grow_unbounded", 999, 1000)
	warm := runCached(t, engine.Config{CacheDir: vdir}, "tables", "grow_unbounded", 999, 1000)
	if cold.stats.Prepared != 2 || cold.stats.Stored != 2 || warm.stats != (engine.CacheStats{Hits: 2}) {
		t.Errorf("variant: cold %+v, warm %+v", cold.stats, warm.stats)
	}
	sameRun(t, "variant", warm, cold)
	if warm.result != 1 {
		t.Errorf("grow_unbounded(999) = %d, want 1 (the table grows to the limit)", warm.result)
	}
}

// rechecksum rewrites the header's length and checksum to match the payload.
func rechecksum(b []byte) []byte {
	sum := sha256.Sum256(b[88:])
	binary.LittleEndian.PutUint64(b[48:], uint64(len(b)-88))
	copy(b[56:88], sum[:])
	return b
}

// cachedFib fills a fresh cache directory with fib's entry and returns the directory, the entry's
// path and its contents as the engine wrote them.
func cachedFib(t *testing.T) (dir, path string, entry []byte) {
	t.Helper()
	dir = t.TempDir()
	runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0)
	path = cacheFiles(t, dir)[0]
	entry, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return dir, path, entry
}

// TestPreparedCacheBadFiles: a file that is not the entry the engine wrote is rejected and the
// module prepared anew (the call gives the same answer and uses the same fuel), and the entry is
// rewritten, so the next engine hits it.
func TestPreparedCacheBadFiles(t *testing.T) {
	want := runCached(t, engine.Config{}, "fib", "fib", 20, 0)
	// The entry of another module, to plant under fib's name.
	odir := t.TempDir()
	runCached(t, engine.Config{CacheDir: odir}, "tables", "grow_unbounded", 0, 0)
	foreign, err := os.ReadFile(cacheFiles(t, odir)[0])
	if err != nil {
		t.Fatal(err)
	}
	flip := func(off int) func([]byte) []byte {
		return func(b []byte) []byte {
			if off < 0 {
				off += len(b)
			}
			b[off] ^= 0x40
			return b
		}
	}
	for _, tc := range []struct {
		name   string
		mangle func([]byte) []byte
	}{
		{"empty", func([]byte) []byte { return nil }},
		{"half a header", func(b []byte) []byte { return b[:40] }},
		{"header only", func(b []byte) []byte { return b[:88] }},
		{"truncated", func(b []byte) []byte { return b[:len(b)-7] }},
		{"extended", func(b []byte) []byte { return append(b, 0) }},
		{"bad magic", flip(2)},
		{"other format version", flip(8)},
		{"other key", flip(20)},
		{"bad length", flip(50)},
		{"bad checksum", flip(60)},
		{"corrupted metadata", flip(89)},
		{"corrupted module", flip(-3)},
		{"foreign entry", func([]byte) []byte { return bytes.Clone(foreign) }},
		{"half the payload, rechecksummed", func(b []byte) []byte { return rechecksum(b[:88+(len(b)-88)/2]) }},
		{"garbage module", func(b []byte) []byte {
			// A valid checksum over a module wazero refuses: the compile falls back.
			n := len(fixture(t, "fib"))
			return rechecksum(append(b[:len(b)-n:len(b)-n], bytes.Repeat([]byte{0xff}, n)...))
		}},
		{"not canonical", func(b []byte) []byte {
			// The table limit (the payload's first number) in two bytes instead of one or more.
			p := b[88:]
			_, n := binary.Uvarint(p)
			v := append(slices.Clone(p[:n-1]), p[n-1]|0x80, 0x00)
			return rechecksum(append(append(b[:88:88], v...), p[n:]...))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, path, good := cachedFib(t)
			if err := os.WriteFile(path, tc.mangle(bytes.Clone(good)), 0o600); err != nil {
				t.Fatal(err)
			}
			got := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0)
			sameRun(t, "after "+tc.name, got, want)
			if s := got.stats; s.Rejected != 1 || s.Prepared != 1 || s.Stored != 1 || s.Hits > 1 {
				t.Errorf("%+v, want the file rejected, the module prepared and stored", s)
			}
			if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, good) {
				t.Errorf("the entry was not rewritten as the engine writes it (%v)", err)
			}
			if again := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0); again.stats != (engine.CacheStats{Hits: 1}) {
				t.Errorf("the rewritten entry: %+v", again.stats)
			}
		})
	}
}

// TestPreparedCacheHugeCounts: a cache file with a valid checksum over a module whose import
// section declares 84 million imports in 5 bytes is rejected before wazero sees the module
// (found by FuzzPreparedCacheFile: wazero allocated 9 GB for it before finding the bytes
// missing), and the module is prepared anew.
func TestPreparedCacheHugeCounts(t *testing.T) {
	want := runCached(t, engine.Config{}, "fib", "fib", 20, 0)
	dir, path, b := cachedFib(t)
	magic := []byte("\x00asm\x01\x00\x00\x00")
	at := bytes.Index(b[88:], magic)
	if at < 0 {
		t.Fatal("no module in the cache file")
	}
	forged := append(append(b[:88+at:88+at], magic...), 0x02, 0x05, 0x80, 0x88, 0x8c, 0x28, 0x00)
	if err := os.WriteFile(path, rechecksum(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 20, 0)
	runtime.ReadMemStats(&after)
	sameRun(t, "after the forged entry", got, want)
	if s := got.stats; s.Rejected != 1 || s.Hits != 0 || s.Prepared != 1 {
		t.Errorf("%+v, want the file rejected before the compile and the module prepared", s)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<20 {
		t.Errorf("compiling with the forged entry allocated %d MiB", n>>20)
	}
}

// TestPreparedCacheConcurrent: engines in several goroutines share one directory, preparing
// and writing the same entries at once; every one computes the same, and what stays is whole.
func TestPreparedCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	want := runCached(t, engine.Config{}, "fib", "fib", 18, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 3 {
				sameRun(t, "concurrent", runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 18, 0), want)
			}
		})
	}
	wg.Wait()
	if files := cacheFiles(t, dir); len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	if got := runCached(t, engine.Config{CacheDir: dir}, "fib", "fib", 18, 0); got.stats != (engine.CacheStats{Hits: 1}) {
		t.Errorf("after the concurrent writers: %+v", got.stats)
	}
}

// TestPreparedCacheUnwritable: a cache directory that cannot be made only costs the cache.
func TestPreparedCacheUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := runCached(t, engine.Config{CacheDir: file}, "fib", "fib", 20, 0)
	if got.fuel != fibCost(20) || got.stats.WriteErrors != 1 || got.stats.Stored != 0 {
		t.Errorf("%+v", got)
	}
}

// TestPreparedCacheMinSize: by default a module under DefaultCacheMinModuleSize is prepared each
// time, without touching the directory.
func TestPreparedCacheMinSize(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		got := runCached(t, engine.Config{CacheDir: dir, CacheMinModuleSize: engine.DefaultCacheMinModuleSize}, "fib", "fib", 10, 0)
		if got.stats != (engine.CacheStats{Prepared: 1}) {
			t.Errorf("%+v", got.stats)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "prepared")); !os.IsNotExist(err) {
		t.Errorf("the cache directory was made (%v)", err)
	}
}
