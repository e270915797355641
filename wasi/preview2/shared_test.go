package preview2_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview2"
)

// TestSharedLinker runs hello.wasm many times from several goroutines with one Linker on which
// WASI 0.2 was defined once, and one InstancePre: each store has its own Host, its own stdin and
// stdout. Run it with -race.
func TestSharedLinker(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	cc, err := component.Compile(ctx, e, readFixture(t, helloWasm))
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	name, err := preview2.RunExport(cc.Decoded())
	if err != nil {
		t.Fatal(err)
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 4, 4
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				errs <- func() error {
					s, err := e.NewStore(ctx, engine.DefaultLimits())
					if err != nil {
						return err
					}
					defer s.Close(ctx)
					who := fmt.Sprintf("g%d-%d", w, r)
					var out bytes.Buffer
					if _, err := preview2.Bind(s, preview2.Config{Stdin: strings.NewReader(who + "\n"), Stdout: &out}); err != nil {
						return err
					}
					// Half the workers link on every instantiation, half share one InstancePre.
					var in *component.Instance
					if w%2 == 0 {
						in, err = l.Instantiate(ctx, s, cc)
					} else {
						in, err = pre.Instantiate(ctx, s)
					}
					if err != nil {
						return err
					}
					if _, err := in.Call(ctx, name); err != nil {
						return err
					}
					if got, want := out.String(), "hello, "+who+"\n"; got != want {
						return fmt.Errorf("stdout %q, want %q", got, want)
					}
					return nil
				}()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestBind_Errors(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	s, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if _, err := preview2.FromStore(s); !errors.Is(err, preview2.ErrNotBound) {
		t.Fatalf("FromStore before Bind: %v, want ErrNotBound", err)
	}
	if _, err := preview2.Bind(s, preview2.Config{}); err != nil {
		t.Fatal(err)
	}
	if _, err := preview2.Bind(s, preview2.Config{}); !errors.Is(err, preview2.ErrAlreadyBound) {
		t.Fatalf("second Bind: %v, want ErrAlreadyBound", err)
	}
	// A store without a Host: the guest's first WASI call traps with ErrNotBound.
	cc, err := component.Compile(ctx, e, readFixture(t, helloWasm))
	if err != nil {
		t.Fatal(err)
	}
	s2, err := e.NewStore(ctx, engine.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close(ctx)
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	in, err := l.Instantiate(ctx, s2, cc)
	if err != nil {
		t.Fatal(err)
	}
	name, _ := preview2.RunExport(cc.Decoded())
	if _, err := in.Call(ctx, name); !errors.Is(err, preview2.ErrNotBound) {
		t.Fatalf("run without a Host: %v, want ErrNotBound", err)
	}
}

// TestRunPrepared runs hello.wasm several times from one InstancePre, each in a fresh store.
func TestRunPrepared(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	cc, err := component.Compile(ctx, e, readFixture(t, helloWasm))
	if err != nil {
		t.Fatal(err)
	}
	l, err := preview2.Linker()
	if err != nil {
		t.Fatal(err)
	}
	pre, err := l.Prepare(cc)
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"one", "two", "three"} {
		s, err := e.NewStore(ctx, engine.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		code, err := preview2.RunPrepared(ctx, s, pre, preview2.Config{Stdin: strings.NewReader(who + "\n"), Stdout: &out})
		s.Close(ctx)
		if err != nil || code != 0 || out.String() != "hello, "+who+"\n" {
			t.Fatalf("run: %d, %v, stdout %q", code, err, out.String())
		}
	}
}

// TestRunTableLimits runs hello.wasm with table element limits below, at and above the default:
// one compiled component serves stores of any limit.
func TestRunTableLimits(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	wasm := readFixture(t, helloWasm)
	for _, limit := range []uint32{1000, 100_000, 1 << 20} {
		lim := engine.DefaultLimits()
		lim.TableElements = limit
		var out bytes.Buffer
		code, err := preview2.Run(ctx, e, wasm, preview2.Config{Stdin: strings.NewReader("tables\n"), Stdout: &out}, lim)
		if err != nil || code != 0 || out.String() != "hello, tables\n" {
			t.Fatalf("TableElements %d: exit %d, %v, stdout %q", limit, code, err, out.String())
		}
	}
}
