package main

// adapterArena is the memory the WASI preview 1 adapter gets instead of Go's heap. wit-component
// gives the adapter a module's `cabi_realloc_adapter` export in preference to `cabi_realloc`;
// patch.mjs adds one, a bump allocator over this array, found through its 16-byte marker in the
// data section. Without it the adapter either re-enters Go from inside a runtime WASI call (Go
// throws "badsystemstack") or grows memory behind Go's sbrk, which later writes over the
// adapter's pages. The adapter needs between 70 and 140 KiB.
var adapterArena = [256 << 10]byte{0: 0xA5, 1: 0x5A, 2: 'S', 3: 'U', 4: 'B', 5: 'A', 6: 'K', 7: 'O', 8: '-', 9: 'A', 10: 'R', 11: 'E', 12: 'N', 13: 'A', 14: 0x5A, 15: 0xA5}

func init() {
	// Reading the array keeps the linker from dropping it.
	if adapterArena[15] != 0xA5 {
		panic("adapter arena marker missing")
	}
}
