package engine

import (
	"fmt"
	"time"
)

// Limits bound what one store (one plugin instance: one or more core instances) may use. A zero
// field means the DefaultLimits value for that field, as in DecodeLimits, so an embedder sets only
// the limits it changes and the zero Limits is DefaultLimits(). The one limit that can be turned
// off is fuel (Fuel = Unmetered), which leaves the deadline to bound a call; no value turns off
// another, and Store.Limits reports the limits in force, defaults filled in.
type Limits struct {
	// Fuel is the fuel each top-level call starts with, counted in wasm instructions (see Fuel),
	// or Unmetered for a store that counts no fuel.
	Fuel uint64
	// Deadline is the wall-clock time each top-level call, and instantiation, may take.
	Deadline time.Duration
	// MemoryBytes caps the size of each linear memory the store's instances define.
	MemoryBytes uint64
	// TableElements caps the element count of each table the store's instances define.
	TableElements uint32
	// Instances caps the number of guest core instances in the store.
	Instances int
}

// Defaults equal to the ZeroClaw reference host's `[plugins.limits]`.
const (
	DefaultFuel          = 1_000_000_000
	DefaultDeadline      = 30 * time.Second
	DefaultMemoryBytes   = 256 << 20
	DefaultTableElements = 100_000
	DefaultInstances     = 64
	// MaxFuel is the largest fuel a call may be given: the counter is a signed 64-bit global.
	MaxFuel = 1<<63 - 1
	// maxMemoryBytes is 4 GiB, the most a 32-bit linear memory can hold.
	maxMemoryBytes = 1 << 32
)

// Unmetered, as Limits.Fuel, makes an unmetered store: its modules run without fuel (no charges,
// no checks of a counter), for an embedder that needs a deadline but no fuel budget. Everything
// else holds: the deadline (enforced by wazero's interpreter, which checks for an interrupted
// instance at every loop header; kobako adds one at the entry of every function that calls, and
// interrupts every instance of the store at the deadline), the memory, table and instance limits,
// traps and exits. What differs:
//
//   - Fuel, FuelConsumed and Limits.Fuel report 0, 0 and Unmetered; SetFuel and ChargeFuel do
//     nothing; FuelListener and FuelProgress hear nothing of the store's calls; a snapshot cannot
//     be captured with unmetered limits (its fuel counts would be missing), though an unmetered
//     store can instantiate one, charged nothing.
//   - Each module an unmetered store instantiates is compiled once more, without the metering
//     rewrite, in a second wazero runtime of the engine (the one with wazero's close-on-context-done
//     configured, which costs metered stores nothing); that compile is cached beside the metered
//     one and released with it.
//   - A call costs a deadline timer and a goroutine more (wazero's watcher), a few microseconds;
//     a call that runs long costs about what it costs on bare wazero (bench/README.md, "Deadline
//     and unmetered stores").
//
// It is not a fuel value: it is larger than MaxFuel, the largest one.
//
// On GOOS=js and wasip1, where Go's scheduler never preempts a running goroutine and only the
// metering's refuel checks can stop a spinning guest, NewStore refuses Unmetered with
// ErrUnmeteredUnsupported.
const Unmetered uint64 = 1<<64 - 1

// DefaultLimits returns the reference host's defaults: fuel 1,000,000,000 per call, deadline 30 s,
// memory 256 MiB, table elements 100,000, instances 64.
func DefaultLimits() Limits {
	return Limits{
		Fuel:          DefaultFuel,
		Deadline:      DefaultDeadline,
		MemoryBytes:   DefaultMemoryBytes,
		TableElements: DefaultTableElements,
		Instances:     DefaultInstances,
	}
}

// withDefaults returns l with each zero field set to its DefaultLimits value.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.Fuel == 0 {
		l.Fuel = d.Fuel
	}
	if l.Deadline == 0 {
		l.Deadline = d.Deadline
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.TableElements == 0 {
		l.TableElements = d.TableElements
	}
	if l.Instances == 0 {
		l.Instances = d.Instances
	}
	return l
}

// Validate reports the first field out of range once zero fields take their defaults: fuel over
// MaxFuel (other than Unmetered), a negative deadline or instance count, memory over 4 GiB.
func (l Limits) Validate() error {
	l = l.withDefaults()
	switch {
	case l.Fuel == 0 || l.Fuel > MaxFuel && l.Fuel != Unmetered:
		return fmt.Errorf("engine: limits: fuel %d out of range 1..%d (or Unmetered)", l.Fuel, uint64(MaxFuel))
	case l.Deadline <= 0:
		return fmt.Errorf("engine: limits: deadline %v must be positive", l.Deadline)
	case l.MemoryBytes == 0 || l.MemoryBytes > maxMemoryBytes:
		return fmt.Errorf("engine: limits: memory %d bytes out of range 1..%d", l.MemoryBytes, uint64(maxMemoryBytes))
	case l.TableElements == 0:
		return fmt.Errorf("engine: limits: table elements must be positive")
	case l.Instances <= 0:
		return fmt.Errorf("engine: limits: instances must be positive")
	}
	return nil
}
