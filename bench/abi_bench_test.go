package bench

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/engine"
)

// engine's memory satisfies abi.Memory structurally: the component layer passes one to the other.
var _ abi.Memory = engine.Memory(nil)

// abiArena is a fixed guest memory whose realloc bumps a pointer. Resetting it between iterations
// does not clear it, so the benchmarks measure the canonical ABI rather than a memset.
type abiArena struct {
	buf  []byte
	next uint32
}

func newABIArena(size int) *abiArena { return &abiArena{buf: make([]byte, size), next: 8} }

func (a *abiArena) Size() uint32 { return uint32(len(a.buf)) }

func (a *abiArena) Read(off, n uint32) ([]byte, bool) {
	end := uint64(off) + uint64(n)
	if end > uint64(len(a.buf)) {
		return nil, false
	}
	return a.buf[off:end:end], true
}

func (a *abiArena) Write(off uint32, v []byte) bool {
	if uint64(off)+uint64(len(v)) > uint64(len(a.buf)) {
		return false
	}
	copy(a.buf[off:], v)
	return true
}

func (a *abiArena) realloc(_, _, align, size uint32) (uint32, error) {
	p := (a.next + align - 1) &^ (align - 1)
	if uint64(p)+uint64(size) > uint64(len(a.buf)) {
		return 0, fmt.Errorf("arena full")
	}
	a.next = p + size
	return p, nil
}

func (a *abiArena) cx(enc abi.StringEncoding) *abi.CallContext {
	return &abi.CallContext{Memory: a, Realloc: a.realloc, Encoding: enc}
}

const mib = 1 << 20

var (
	abiASCII = strings.Repeat("kobako runs small boxes. ", mib/25+1)[:mib]
	// abiMixed is 1 MiB of UTF-8 mixing ASCII, Latin-1, CJK and emoji.
	abiMixed = func() string {
		s := strings.Repeat("Grüße, 小箱 📦! ", mib/20+1)
		for len(s) > mib {
			_, n := lastRune(s)
			s = s[:len(s)-n]
		}
		return s
	}()
	abiBytes = []byte(abiASCII)
)

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return []rune(s[i:])[0], len(s) - i
		}
	}
	return 0, 0
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkABICopy is the baseline for the byte payloads: copy() of the same 1 MiB into an
// existing buffer (what lowering into guest memory can at best cost), and into a freshly
// allocated one (what lifting into a new Go string or slice can at best cost).
func BenchmarkABICopy(b *testing.B) {
	b.Run("alloc=none", func(b *testing.B) {
		dst := make([]byte, mib)
		b.SetBytes(mib)
		for b.Loop() {
			copy(dst, abiBytes)
		}
	})
	b.Run("alloc=fresh", func(b *testing.B) {
		b.SetBytes(mib)
		for b.Loop() {
			abiSink = bytes.Clone(abiBytes)
		}
	})
}

var abiSink []byte

// BenchmarkABIString lowers and lifts a 1 MiB string in each encoding, ASCII text and mixed text.
func BenchmarkABIString(b *testing.B) {
	for _, text := range []struct{ name, s string }{{"ascii", abiASCII}, {"mixed", abiMixed}} {
		for _, enc := range []abi.StringEncoding{abi.UTF8, abi.UTF16, abi.Latin1UTF16} {
			v := abi.StringValue(text.s)
			b.Run(fmt.Sprintf("op=lower/text=%s/enc=%s", text.name, enc), func(b *testing.B) {
				a := newABIArena(4 * mib)
				cx := a.cx(enc)
				b.SetBytes(int64(len(text.s)))
				for b.Loop() {
					a.next = 8
					if _, err := cx.LowerFlat(abi.String, v); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("op=lift/text=%s/enc=%s", text.name, enc), func(b *testing.B) {
				a := newABIArena(4 * mib)
				cx := a.cx(enc)
				flat := must(cx.LowerFlat(abi.String, v))
				b.SetBytes(int64(len(text.s)))
				for b.Loop() {
					got, err := cx.LiftFlat(abi.String, flat)
					if err != nil || len(got.Str()) != len(text.s) {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkABIBytes lowers and lifts a 1 MiB list<u8>, dynamically and through a []byte codec.
func BenchmarkABIBytes(b *testing.B) {
	lt := must(abi.ListOf(abi.U8))
	codec := must(abi.CodecFor[[]byte](lt))
	v := abi.BytesValue(abiBytes)
	b.Run("op=lower/path=value", func(b *testing.B) {
		a := newABIArena(2 * mib)
		cx := a.cx(abi.UTF8)
		b.SetBytes(mib)
		for b.Loop() {
			a.next = 8
			if _, err := cx.LowerFlat(lt, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=lift/path=value", func(b *testing.B) {
		a := newABIArena(2 * mib)
		cx := a.cx(abi.UTF8)
		flat := must(cx.LowerFlat(lt, v))
		b.SetBytes(mib)
		for b.Loop() {
			if got, err := cx.LiftFlat(lt, flat); err != nil || got.Len() != mib {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=lower/path=typed", func(b *testing.B) {
		a := newABIArena(2 * mib)
		cx := a.cx(abi.UTF8)
		b.SetBytes(mib)
		for b.Loop() {
			a.next = 8
			if _, err := codec.LowerFlat(cx, abiBytes); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=lift/path=typed", func(b *testing.B) {
		a := newABIArena(2 * mib)
		cx := a.cx(abi.UTF8)
		flat := must(cx.LowerFlat(lt, v))
		b.SetBytes(mib)
		for b.Loop() {
			if got, err := codec.LiftFlat(cx, flat); err != nil || len(got) != mib {
				b.Fatal(err)
			}
		}
	})
}

type abiBenchRecord struct {
	ID     uint32
	Name   string
	Score  float64
	Active bool
	Tags   []string
}

// BenchmarkABIRecords lowers and lifts a list of 10,000 records with a string and a list each.
func BenchmarkABIRecords(b *testing.B) {
	rt := must(abi.RecordOf(
		abi.Field{Name: "id", Type: abi.U32},
		abi.Field{Name: "name", Type: abi.String},
		abi.Field{Name: "score", Type: abi.F64},
		abi.Field{Name: "active", Type: abi.Bool},
		abi.Field{Name: "tags", Type: must(abi.ListOf(abi.String))},
	))
	lt := must(abi.ListOf(rt))
	codec := must(abi.CodecFor[[]abiBenchRecord](lt))
	recs := make([]abiBenchRecord, 10000)
	for i := range recs {
		recs[i] = abiBenchRecord{ID: uint32(i), Name: fmt.Sprintf("record-%d", i), Score: float64(i) / 3,
			Active: i%2 == 0, Tags: []string{"a", "bc"}}
	}
	v := must(codec.ToValue(recs))
	b.Run("op=lower/path=value", func(b *testing.B) {
		a := newABIArena(8 * mib)
		cx := a.cx(abi.UTF8)
		for b.Loop() {
			a.next = 8
			if _, err := cx.LowerFlat(lt, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=lift/path=value", func(b *testing.B) {
		a := newABIArena(8 * mib)
		cx := a.cx(abi.UTF8)
		flat := must(cx.LowerFlat(lt, v))
		for b.Loop() {
			if got, err := cx.LiftFlat(lt, flat); err != nil || got.Len() != len(recs) {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=lower/path=typed", func(b *testing.B) {
		a := newABIArena(8 * mib)
		cx := a.cx(abi.UTF8)
		for b.Loop() {
			a.next = 8
			if _, err := codec.LowerFlat(cx, recs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=lift/path=typed", func(b *testing.B) {
		a := newABIArena(8 * mib)
		cx := a.cx(abi.UTF8)
		flat := must(cx.LowerFlat(lt, v))
		for b.Loop() {
			if got, err := codec.LiftFlat(cx, flat); err != nil || len(got) != len(recs) {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkABIDeepVariant lowers and lifts a value nested 100 variants deep
// (variant { leaf(u32), node(variant { … }) }), through memory and through flat values.
func BenchmarkABIDeepVariant(b *testing.B) {
	const depth = 100
	t := abi.Type(abi.U32)
	v := abi.U32Value(42)
	for range depth {
		t = must(abi.VariantOf(abi.Case{Name: "leaf", Type: abi.U32}, abi.Case{Name: "node", Type: t}))
		v = abi.VariantValue(1, v)
	}
	for _, form := range []string{"flat", "memory"} {
		b.Run("op=lower/form="+form, func(b *testing.B) {
			a := newABIArena(mib)
			cx := a.cx(abi.UTF8)
			for b.Loop() {
				var err error
				if form == "flat" {
					_, err = cx.LowerFlat(t, v)
				} else {
					err = cx.Store(t, v, 64)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=lift/form="+form, func(b *testing.B) {
			a := newABIArena(mib)
			cx := a.cx(abi.UTF8)
			flat := must(cx.LowerFlat(t, v))
			if err := cx.Store(t, v, 64); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				var got abi.Value
				var err error
				if form == "flat" {
					got, err = cx.LiftFlat(t, flat)
				} else {
					got, err = cx.Load(t, 64)
				}
				if err != nil || !abi.Equal(got, v) {
					b.Fatal(err)
				}
			}
		})
	}
}
