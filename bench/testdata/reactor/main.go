// Command reactor is the Go benchmark guest: a WASI preview 1 reactor (built with
// -buildmode=c-shared) whose exports run one workload each on a warm instance. The host calls
// _initialize once, then the exports repeatedly, so a benchmark measures the workload and not the
// Go runtime's start-up.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"unsafe"
)

func main() {}

// fib is recursive Fibonacci: call-heavy, the worst case for per-function-entry fuel checks.
//
//go:wasmexport fib
func fib(n int32) int32 {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// loop runs n rounds of a xorshift/multiply mix with no calls: the worst case for per-block fuel
// charges on a loop back-edge. The host computes the same sequence to check the result.
//
//go:wasmexport loop
func loop(n int32) int64 {
	x := uint64(0x9e3779b97f4a7c15)
	for i := int32(0); i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x += uint64(i) * 0x2545f4914f6cdd1d
	}
	return int64(x)
}

// input is the sha256 workload's data, filled by setup with a pattern the host reproduces.
var input [1 << 20]byte

var digest [sha256.Size]byte

//go:wasmexport setup
func setup() {
	for i := range input {
		input[i] = byte(i*31 + i>>8 + 7)
	}
}

// hash returns a pointer to the SHA-256 of the first n bytes of input, or 0 when n is out of range.
//
//go:wasmexport sha256
func hash(n int32) uint32 {
	if n < 0 || int(n) > len(input) {
		return 0
	}
	digest = sha256.Sum256(input[:n])
	return uint32(uintptr(unsafe.Pointer(&digest[0])))
}

// Record is the JSON workload's element: strings, numbers, a bool, a slice and a nested struct,
// the shapes a plugin's request and response carry.
type Record struct {
	ID     int      `json:"id"`
	Name   string   `json:"name"`
	Score  float64  `json:"score"`
	Active bool     `json:"active"`
	Tags   []string `json:"tags"`
	Where  Point    `json:"where"`
}

// Point is Record's nested struct.
type Point struct {
	X int64 `json:"x"`
	Y int64 `json:"y"`
}

// records builds n records; the host's test builds the same ones to check the encoding.
func records(n int) []Record {
	rs := make([]Record, n)
	for i := range rs {
		rs[i] = Record{
			ID:     i,
			Name:   "record \"" + strconv.Itoa(i) + "\" é",
			Score:  float64(i)*1.25 + 0.1,
			Active: i%3 == 0,
			Tags:   []string{"t" + strconv.Itoa(i%7), "u" + strconv.Itoa(i%11)},
			Where:  Point{X: int64(i) * 1000003, Y: -int64(i)},
		}
	}
	return rs
}

var (
	encoded []byte
	source  []Record
)

// jsonRoundTrip encodes n records, decodes the result and compares it with the original. It returns
// the encoding's length (its bytes are at jsonOutput), or -1 if the round trip changed anything.
//
//go:wasmexport json
func jsonRoundTrip(n int32) int32 {
	if n < 0 || n > 1<<16 {
		return -1
	}
	if len(source) != int(n) {
		source = records(int(n))
	}
	b, err := json.Marshal(source)
	if err != nil {
		return -1
	}
	var back []Record
	if err := json.Unmarshal(b, &back); err != nil || !equal(source, back) {
		return -1
	}
	encoded = b
	return int32(len(b))
}

// jsonOutput returns a pointer to the last encoding jsonRoundTrip produced.
//
//go:wasmexport json_output
func jsonOutput() uint32 {
	if len(encoded) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&encoded[0])))
}

func equal(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.ID != y.ID || x.Name != y.Name || x.Score != y.Score || x.Active != y.Active ||
			x.Where != y.Where || len(x.Tags) != len(y.Tags) {
			return false
		}
		for j := range x.Tags {
			if x.Tags[j] != y.Tags[j] {
				return false
			}
		}
	}
	return true
}
