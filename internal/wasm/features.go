package wasm

import (
	"fmt"
	"strings"
)

// FeatureUse is one place where a module uses a feature added to WebAssembly after the 1.0 (MVP)
// specification.
type FeatureUse struct {
	// Feature is the feature's proposal name, one of the Feature* constants.
	Feature string
	// Where says where the use was found, for example
	// `function 12 (name "fib") at byte offset 0x1234: opcode 0xfe 0x10 (i32.atomic.load)`.
	Where string
}

// String formats u as "feature: where".
func (u FeatureUse) String() string { return u.Feature + ": " + u.Where }

// maxUsesPerFeature bounds how many uses of one feature are recorded: an upload validator needs
// an example, not millions.
const maxUsesPerFeature = 3

type featureUse struct {
	feature string
	fn      int64 // function index, or -1 outside code
	off     int   // byte offset in the module binary
	detail  string
	op      uint32 // with opPrefix: the detail is opPrefix followed by the opcode
	opText  string
}

// featureSet records feature uses in the order they were found.
type featureSet struct {
	uses  []featureUse
	count map[string]int
}

func (s *featureSet) add(feature string, fn int64, off int, detail string) {
	if s.count == nil {
		s.count = map[string]int{}
	}
	s.count[feature]++
	if s.count[feature] <= maxUsesPerFeature {
		s.uses = append(s.uses, featureUse{feature: feature, fn: fn, off: off, detail: detail})
	}
}

// addOp records an instruction's use of a feature. The description is formatted only when asked
// for, since SIMD code can use a feature millions of times.
func (s *featureSet) addOp(feature string, fn int64, off int, prefix string, op uint32) {
	if s.count == nil {
		s.count = map[string]int{}
	}
	s.count[feature]++
	if s.count[feature] <= maxUsesPerFeature {
		s.uses = append(s.uses, featureUse{feature: feature, fn: fn, off: off, opText: prefix, op: op})
	}
}

func (m *Module) where(u featureUse) string {
	var b strings.Builder
	if u.fn >= 0 {
		fmt.Fprintf(&b, "function %d", u.fn)
		if n := m.FuncName(uint32(u.fn)); n != "" {
			fmt.Fprintf(&b, " (name %q)", n)
		}
		b.WriteString(" at ")
	}
	detail := u.detail
	if u.opText != "" {
		detail = u.opText + opString(u.op)
	}
	fmt.Fprintf(&b, "byte offset 0x%x: %s", u.off, detail)
	return b.String()
}

// Features returns the post-MVP features the module uses, with up to three places for each, in
// the order they appear in the binary. Features that wazero's CoreFeaturesV2 supports (SIMD,
// bulk memory, reference types, ...) are listed too, so an upload validator can report them.
func (m *Module) Features() []FeatureUse {
	out := make([]FeatureUse, len(m.features.uses))
	for i, u := range m.features.uses {
		out[i] = FeatureUse{Feature: u.feature, Where: m.where(u)}
	}
	return out
}

// UsesFeature reports whether the module uses feature anywhere, and how often.
func (m *Module) UsesFeature(feature string) (int, bool) {
	n := m.features.count[feature]
	return n, n > 0
}

// CheckEngineFeatures returns an error wrapping ErrUnsupportedFeature if the module uses anything
// outside WebAssembly 2.0 as wazero's api.CoreFeaturesV2 runs it: threads, exception handling,
// tail calls, typed function references, GC, memory64, multi-memory, relaxed SIMD or extended
// constant expressions. The error names every such feature and where it was first found.
func (m *Module) CheckEngineFeatures() error {
	var bad []string
	seen := map[string]bool{}
	for _, u := range m.features.uses {
		if engineFeatures[u.feature] || seen[u.feature] {
			continue
		}
		seen[u.feature] = true
		bad = append(bad, fmt.Sprintf("%s (%s)", u.feature, m.where(u)))
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("wasm: %w: the module uses %s; only WebAssembly 2.0 is supported", ErrUnsupportedFeature, strings.Join(bad, "; "))
}
