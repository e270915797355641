package engine

import (
	"bytes"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/kobako/kobako/internal/wasm"
)

func genTables(t *rapid.T, label string) []wasm.TableType {
	n := rapid.IntRange(0, 3).Draw(t, label+" count")
	var ts []wasm.TableType
	for i := range n {
		_ = i
		hasMax := rapid.Bool().Draw(t, label+" has max")
		tt := wasm.TableType{ElemType: rapid.SampledFrom([]byte{byte(wasm.FuncRef), byte(wasm.ExternRef)}).Draw(t, label+" elem"),
			Min: rapid.Uint32().Draw(t, label+" min"), HasMax: hasMax, Is64: rapid.Bool().Draw(t, label+" 64")}
		if hasMax {
			tt.Max = rapid.Uint32().Draw(t, label+" max")
		}
		ts = append(ts, tt)
	}
	return ts
}

func genExterns(t *rapid.T, label string, withModule bool) []preparedExtern {
	n := rapid.IntRange(0, 4).Draw(t, label+" count")
	var xs []preparedExtern
	for range n {
		x := preparedExtern{Name: rapid.String().Draw(t, label+" name"), Kind: ExternKind(rapid.IntRange(0, 4).Draw(t, label+" kind"))}
		if withModule {
			x.Module = rapid.String().Draw(t, label+" module")
		}
		xs = append(xs, x)
	}
	return xs
}

// TestPayloadRoundTrip: what the writer encodes, the reader decodes to the same prepared module.
func TestPayloadRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := &prepared{tableMax: rapid.Uint32().Draw(rt, "table limit"), hasStart: rapid.Bool().Draw(rt, "start")}
		for range rapid.IntRange(0, 2).Draw(rt, "memories") {
			hasMax := rapid.Bool().Draw(rt, "has max")
			m := wasm.MemoryType{Min: rapid.Uint64().Draw(rt, "min"), HasMax: hasMax,
				Shared: rapid.Bool().Draw(rt, "shared"), Is64: rapid.Bool().Draw(rt, "64")}
			if hasMax {
				m.Max = rapid.Uint64().Draw(rt, "max")
			}
			p.memories = append(p.memories, m)
		}
		p.tables, p.declaredTables = genTables(rt, "tables"), genTables(rt, "declared")
		if n := rapid.IntRange(0, 3).Draw(rt, "charges"); n > 0 {
			p.entryCharges = map[string]int64{}
			for range n {
				p.entryCharges[rapid.String().Draw(rt, "charged")] = rapid.Int64().Draw(rt, "charge")
			}
		}
		p.imports, p.exports = genExterns(rt, "import", true), genExterns(rt, "export", false)
		p.out = rapid.SliceOfN(rapid.Byte(), 1, 64).Draw(rt, "module")
		payload := append(appendMeta(nil, p), p.out...)
		got, err := decodePayload(payload)
		if err != nil {
			rt.Fatalf("decode: %v", err)
		}
		if !reflect.DeepEqual(got, p) {
			rt.Fatalf("decoded %+v, want %+v", got, p)
		}
	})
}

// TestPayloadCanonical: any bytes the reader accepts are exactly what the writer would write for
// what it read, so there is one payload per prepared module.
func TestPayloadCanonical(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 96).Draw(rt, "payload")
		p, err := decodePayload(b)
		if err != nil {
			return
		}
		if again := append(appendMeta(nil, p), p.out...); !bytes.Equal(again, b) {
			rt.Fatalf("accepted %x, which encodes back as %x", b, again)
		}
	})
}
