package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
)

// workload is one export of a warm guest called with one argument, and how to check its result.
type workload struct {
	guest   string // the "guest=" part of the benchmark name: go or wat
	fixture string
	export  string
	arg     uint64
	check   func(g *guest, res []uint64) error
}

// Workload sizes, chosen so that one call takes roughly 50-150 ms on the interpreter (sha256 is
// fixed at 1 MiB by the issue and takes over a second): long enough that per-call costs vanish,
// short enough that -count 6 over every engine stays within minutes on two cores.
const (
	fibGoN     = 25
	fibWatN    = 27
	loopN      = 500_000
	sha256Size = 1 << 20
	jsonN      = 100
)

func fibWorkload(guestName, fixture string, n uint64) workload {
	return workload{guestName, fixture, "fib", n, func(_ *guest, res []uint64) error {
		return expectResult(res, uint64(fibExpected(int(n))))
	}}
}

func loopWorkload(guestName, fixture string, n uint64) workload {
	return workload{guestName, fixture, "loop", n, func(_ *guest, res []uint64) error {
		return expectResult(res, loopExpected(int32(n)))
	}}
}

func sha256Workload(n uint64) workload {
	want := sha256.Sum256(sha256Input(int(n)))
	return workload{"go", "reactor/reactor", "sha256", n, func(g *guest, res []uint64) error {
		if len(res) != 1 || res[0] == 0 {
			return fmt.Errorf("sha256(%d) returned %v, want a pointer to the digest", n, res)
		}
		got, err := g.readCopy(uint32(res[0]), sha256.Size)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want[:]) {
			return fmt.Errorf("sha256(%d) = %x, want %x", n, got, want)
		}
		return nil
	}}
}

func jsonWorkload(n uint64) workload {
	want, err := json.Marshal(jsonRecords(int(n)))
	if err != nil {
		panic("BUG: host json: " + err.Error())
	}
	return workload{"go", "reactor/reactor", "json", n, func(g *guest, res []uint64) error {
		if len(res) != 1 || int32(res[0]) < 0 {
			return fmt.Errorf("json(%d) = %v: the guest's round trip failed", n, res)
		}
		if int(res[0]) != len(want) {
			return fmt.Errorf("json(%d) encoded %d bytes, want %d", n, res[0], len(want))
		}
		f, err := g.fn("json_output")
		if err != nil {
			return err
		}
		ptr, err := f(context.Background())
		if err != nil {
			return err
		}
		got, err := g.readCopy(uint32(ptr[0]), uint32(len(want)))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("json(%d) encoding differs from the host's:\n got %.200s\nwant %.200s", n, got, want)
		}
		return nil
	}}
}

func expectResult(res []uint64, want uint64) error {
	if len(res) != 1 || res[0] != want {
		return fmt.Errorf("got %v, want [%d]", res, want)
	}
	return nil
}

// fibExpected is fib computed iteratively on the host, truncated to the guests' i32.
func fibExpected(n int) int32 {
	a, b := int32(0), int32(1)
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return a
}

// loopExpected is the guests' loop export computed on the host.
func loopExpected(n int32) uint64 {
	x := uint64(0x9e3779b97f4a7c15)
	for i := int32(0); i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x += uint64(i) * 0x2545f4914f6cdd1d
	}
	return x
}

// sha256Input is the pattern the reactor's setup export writes.
func sha256Input(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>8 + 7)
	}
	return b
}

// jsonRecord mirrors the reactor guest's Record; the host encodes the same values to check the
// guest's encoding byte for byte.
type jsonRecord struct {
	ID     int       `json:"id"`
	Name   string    `json:"name"`
	Score  float64   `json:"score"`
	Active bool      `json:"active"`
	Tags   []string  `json:"tags"`
	Where  jsonPoint `json:"where"`
}

type jsonPoint struct {
	X int64 `json:"x"`
	Y int64 `json:"y"`
}

func jsonRecords(n int) []jsonRecord {
	rs := make([]jsonRecord, n)
	for i := range rs {
		rs[i] = jsonRecord{
			ID:     i,
			Name:   "record \"" + strconv.Itoa(i) + "\" é",
			Score:  float64(i)*1.25 + 0.1,
			Active: i%3 == 0,
			Tags:   []string{"t" + strconv.Itoa(i%7), "u" + strconv.Itoa(i%11)},
			Where:  jsonPoint{X: int64(i) * 1000003, Y: -int64(i)},
		}
	}
	return rs
}

// runWorkload benchmarks w on each engine as a sub-benchmark "guest=…/engine=…", checking every
// call's result. Metering engines also report the fuel one call uses.
func runWorkload(b *testing.B, w workload) {
	b.Run("guest="+w.guest, func(b *testing.B) {
		for _, kind := range workloadEngines {
			b.Run("engine="+string(kind), func(b *testing.B) {
				g := warmGuest(b, kind, w.fixture)
				f, err := g.fn(w.export)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				var res []uint64
				var fuel uint64
				cpu := newCPUMeter()
				defer cpu.report(b)
				for b.Loop() {
					cpu.begin()
					res, err = f(ctx, w.arg)
					cpu.end()
					if err != nil {
						b.Fatalf("%s(%d) on %s: %v", w.export, w.arg, kind, err)
					}
					if g.fuel != nil {
						fuel = g.fuel() // before check, which may call the guest again
					}
					if err := w.check(g, res); err != nil {
						b.Fatalf("%s on %s: %v", w.export, kind, err)
					}
				}
				if g.fuel != nil {
					b.ReportMetric(float64(fuel), "fuel/op")
				}
			})
		}
	})
}

func BenchmarkFib(b *testing.B) {
	runWorkload(b, fibWorkload("go", "reactor/reactor", fibGoN))
	runWorkload(b, fibWorkload("wat", "wat/fib", fibWatN))
}

func BenchmarkLoop(b *testing.B) {
	runWorkload(b, loopWorkload("go", "reactor/reactor", loopN))
	runWorkload(b, loopWorkload("wat", "wat/loop", loopN))
}

func BenchmarkSHA256(b *testing.B) { runWorkload(b, sha256Workload(sha256Size)) }

func BenchmarkJSON(b *testing.B) { runWorkload(b, jsonWorkload(jsonN)) }

// TestWorkloads runs every workload once, small, on every engine, so that a broken guest, engine or
// check fails `go test` and not only a benchmark run. It also checks that the kobako and fuel-only
// engines run the same rewritten code: on a deterministic guest they must count the same fuel.
func TestWorkloads(t *testing.T) {
	workloads := []workload{
		fibWorkload("go", "reactor/reactor", 15),
		fibWorkload("wat", "wat/fib", 15),
		loopWorkload("go", "reactor/reactor", 1000),
		loopWorkload("wat", "wat/loop", 1000),
		sha256Workload(4096),
		jsonWorkload(10),
	}
	for _, w := range workloads {
		t.Run(w.guest+"/"+w.export, func(t *testing.T) {
			fuel := map[engineKind]uint64{}
			for _, kind := range guestKinds(workloadEngines) {
				g := warmGuest(t, kind, w.fixture)
				f, err := g.fn(w.export)
				if err != nil {
					t.Fatal(err)
				}
				res, err := f(context.Background(), w.arg)
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if g.fuel != nil {
					fuel[kind] = g.fuel()
				}
				if err := w.check(g, res); err != nil {
					t.Errorf("%s: %v", kind, err)
				}
			}
			if fuel[kobako] == 0 || fuel[fuelOnly] == 0 {
				t.Errorf("fuel: kobako %d, fuel-only %d; want both nonzero", fuel[kobako], fuel[fuelOnly])
			}
			// A Go guest's runtime reads the clock and random numbers, which steer its scheduler, GC
			// and hash seeds, so only the WAT guests' counts must agree to the unit.
			if w.guest == "wat" && fuel[kobako] != fuel[fuelOnly] {
				t.Errorf("fuel: kobako %d, fuel-only %d; want equal", fuel[kobako], fuel[fuelOnly])
			}
		})
	}
}
