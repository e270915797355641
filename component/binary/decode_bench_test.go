package binary

import "testing"

// BenchmarkDecode decodes committed components whose type sections exercise the value-type
// constructors: types.wasm (every kind of value type), hello.wasm (a C program's WASI 0.2
// imports) and fixture.wasm (a small plugin with resources).
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"types.wasm", "hello.wasm", "fixture.wasm"} {
		raw := readFixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := Decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
