package preview2_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview2"
)

func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(ctx) })
	return e
}

func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const helloWasm = "../../component/testdata/hello.wasm"

// hello.wasm is C built with wasi-libc and the preview1 command adapter: the adapter reads
// stdin, writes stdout and stderr, reads the environment, the clocks and the preopens.
func TestRunHello(t *testing.T) {
	e := newEngine(t)
	wasm := readFixture(t, helloWasm)
	tests := []struct {
		name, stdin, env   string
		wantOut, wantErrPf string
	}{
		{"name", "kobako\n", "HOME=/home/kobako", "hello, kobako\n", "argc=2 home=/home/kobako time=1767225600\n"},
		{"no newline", "world", "HOME=/h", "hello, world\n", "argc=2 home=/h time=1767225600\n"},
		{"empty stdin", "", "X=1", "", "argc=2 home=(unset) time=1767225600\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cfg := preview2.Config{
				Args: []string{"hello", "x"}, Env: []string{tt.env},
				Stdin: strings.NewReader(tt.stdin), Stdout: &out, Stderr: &errOut,
				Clock: wasi.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 0),
			}
			code, err := preview2.Run(context.Background(), e, wasm, cfg, engine.DefaultLimits())
			if err != nil {
				t.Fatalf("run: %v (stdout %q, stderr %q)", err, out.String(), errOut.String())
			}
			if code != 0 {
				t.Fatalf("exit code %d", code)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantOut)
			}
			if errOut.String() != tt.wantErrPf {
				t.Errorf("stderr = %q, want %q", errOut.String(), tt.wantErrPf)
			}
		})
	}
}

func TestRunExitStatus(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		file    string
		want    uint32
		wantErr error
	}{
		{"testdata/exit7.wasm", 7, nil},  // wasi:cli/exit exit-with-code, run@0.2.3
		{"testdata/runerr.wasm", 1, nil}, // run returns err
		{helloWasm, 0, nil},              // run returns ok
		{"testdata/probe.wasm", 0, preview2.ErrNoRun},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			code, err := preview2.Run(context.Background(), e, readFixture(t, tt.file), preview2.Config{}, engine.DefaultLimits())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if code != tt.want {
				t.Fatalf("exit status %d, want %d", code, tt.want)
			}
		})
	}
}

// TestRunReleasesCompile runs many versions of a component (each with its own core modules, as a
// reloaded plugin has) through Run in one engine and checks that the Go heap stays flat: Run
// compiled each, so Run must close each.
func TestRunReleasesCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles many components")
	}
	ctx := context.Background()
	e := newEngine(t)
	b := readFixture(t, helloWasm)
	off := bytes.Index(b, []byte("(unset)"))
	if off < 0 || bytes.Count(b, []byte("(unset)")) != 1 {
		t.Fatal(`hello.wasm does not hold "(unset)" exactly once`)
	}
	run := func(i int) {
		t.Helper()
		v := bytes.Clone(b)
		copy(v[off:], fmt.Sprintf("(%05d)", i))
		var errOut bytes.Buffer
		cfg := preview2.Config{Args: []string{"hello"}, Stderr: &errOut}
		if code, err := preview2.Run(ctx, e, v, cfg, engine.Limits{}); err != nil || code != 0 {
			t.Fatalf("version %d: exit %d, %v", i, code, err)
		}
		if want := fmt.Sprintf("home=(%05d)", i); !strings.Contains(errOut.String(), want) {
			t.Fatalf("version %d: stderr %q, want %q in it", i, errOut.String(), want)
		}
	}
	const warm, total = 5, 45
	for i := range warm {
		run(i)
	}
	before := heapAlloc()
	for i := warm; i < total; i++ {
		run(i)
	}
	growth := int64(heapAlloc()) - int64(before)
	t.Logf("%d bytes a version", growth/(total-warm))
	if growth > 4<<20 {
		t.Errorf("the heap grew by %d KB over %d runs", growth>>10, total-warm)
	}
}

// heapAlloc returns the live Go heap after a full collection.
func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
