package fuzz

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
)

var (
	p1Once   sync.Once
	p1Engine *engine.Engine
	p1Module *engine.Module
	p1Err    error
)

// FuzzPreview1 drives every wasi_snapshot_preview1 function with guest memory and arguments
// taken from the input, through testdata/raw.wasm (which exports each function as t_<name>).
// Whatever the input, each call must return an errno or end the guest through proc_exit: a host
// trap (a panic in a host function) or a hang is a bug.
//
// Input: memory image length (1 byte, in 256-byte units), the image, then calls of one byte
// choosing the function and 8 bytes per parameter (missing bytes read as zero).
func FuzzPreview1(f *testing.F) {
	for i := range preview1.Module.Funcs {
		seed := []byte{4}
		seed = append(seed, make([]byte, 1024)...)
		seed = append(seed, byte(i))
		for range 9 {
			seed = binary.LittleEndian.AppendUint64(seed, uint64(i*37%512))
		}
		f.Add(seed)
	}
	f.Fuzz(runPreview1Input)
}

// runPreview1Input runs one fuzz input (see FuzzPreview1).
func runPreview1Input(t *testing.T, data []byte) {
	p1Once.Do(func() {
		ctx := context.Background()
		p1Engine, p1Err = engine.New(ctx, engine.Config{})
		if p1Err != nil {
			return
		}
		var wasm []byte
		if wasm, p1Err = os.ReadFile(filepath.Join("..", "wasi", "preview1", "testdata", "raw.wasm")); p1Err != nil {
			return
		}
		p1Module, p1Err = p1Engine.Compile(ctx, wasm)
	})
	if p1Err != nil {
		t.Fatal(p1Err)
	}
	if len(data) == 0 {
		return
	}
	imgLen := int(data[0]) * 256
	data = data[1:]
	img := data[:min(imgLen, len(data))]
	data = data[len(img):]

	ctx := context.Background()
	lim := engine.DefaultLimits()
	lim.Deadline = 5 * time.Second
	s, err := p1Engine.NewStore(ctx, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), []byte("contents"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("../..", filepath.Join(dir, "sub", "up"))
	h, err := preview1.Bind(s, preview1.Config{
		Args:   []string{"fuzz", "arg"},
		Env:    []string{"K=V"},
		Stdin:  bytes.NewReader(img),
		Clock:  wasi.NewFakeClock(time.Unix(1_700_000_000, 0), time.Millisecond),
		Random: bytes.NewReader(bytes.Repeat([]byte{1}, 1<<18)),
		Preopens: []wasi.Preopen{
			{GuestPath: "/rw", HostDir: dir},
			{GuestPath: "/ro", HostDir: dir, ReadOnly: true},
			{GuestPath: "/fs", FS: fstest.MapFS{"a": {Data: []byte("a")}, "d/b": {}}},
		},
		WriteBudget: 1 << 20,
		MaxHandles:  16,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	inst, err := s.Instantiate(ctx, p1Module, engine.Imports{preview1.ModuleName: preview1.Module})
	if err != nil {
		t.Fatal(err)
	}
	inst.Memory("memory").Write(0, img)

	funcs := preview1.Module.Funcs
	for calls := 0; len(data) > 0 && calls < 64; calls++ {
		fn := funcs[int(data[0])%len(funcs)]
		data = data[1:]
		args := make([]uint64, len(fn.Params))
		for i, typ := range fn.Params {
			var v uint64
			if len(data) >= 8 {
				v = binary.LittleEndian.Uint64(data)
				data = data[8:]
			}
			if typ == engine.I32 {
				// Mostly pointers and lengths near the 128 KiB memory (a little past its end, to
				// probe the bounds checks); sometimes any 32-bit value.
				if v>>63 == 0 {
					v %= 2*65536 + 256
				}
				v = uint64(uint32(v))
			}
			args[i] = v
		}
		_, err := inst.Call(ctx, "t_"+fn.Name, args...)
		var ee *engine.ExitError
		if errors.As(err, &ee) {
			return
		}
		if err != nil {
			t.Fatalf("%s%v: %v", fn.Name, args, err)
		}
	}
}
