package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/abi/wave"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
	"github.com/kobako/kobako/wasi/preview1"
	"github.com/kobako/kobako/wasi/preview2"
)

// usageError marks an --invoke failure that is the caller's mistake rather than the program's:
// a malformed expression, an export that does not exist, arguments that do not fit. run exits
// with exitUsage for these.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// invoke calls the export EXPR names in a component or a core module and prints its results in
// WAVE on stdout, one line, nothing when there are none.
func invoke(ctx context.Context, wasmBytes []byte, expr string, cfg wasi.Config, hc preview2.HTTPConfig, limits engine.Limits, trapUnknown bool, stdout io.Writer) (runStats, error) {
	var st runStats
	e, err := newEngine(ctx)
	if err != nil {
		return st, err
	}
	defer e.Close(ctx)
	s, err := e.NewStore(ctx, limits)
	if err != nil {
		return st, err
	}
	defer s.Close(ctx)
	var out string
	if binary.IsComponent(wasmBytes) {
		out, err = invokeComponent(ctx, e, s, wasmBytes, expr, cfg, hc, trapUnknown)
	} else {
		out, err = invokeCore(ctx, e, s, wasmBytes, expr, cfg, limits)
	}
	st.FuelConsumed = s.FuelConsumed()
	st.PeakMemoryBytes = s.PeakMemory()
	if err != nil {
		return st, err
	}
	if out != "" {
		_, err = fmt.Fprintln(stdout, out)
	}
	return st, err
}

// invokeComponent instantiates a component with WASI 0.2 to import (a component importing
// anything else fails here naming the import, unless trapUnknown makes such imports trap when
// called) and calls the export expr names.
func invokeComponent(ctx context.Context, e *engine.Engine, s *engine.Store, wasmBytes []byte, expr string, cfg wasi.Config, hc preview2.HTTPConfig, trapUnknown bool) (string, error) {
	call, err := wave.ParseCall(expr)
	if err != nil {
		return "", &usageError{fmt.Errorf("--invoke %s: %w", clipExpr(expr), err)}
	}
	cc, err := component.Compile(ctx, e, wasmBytes)
	if err != nil {
		return "", err
	}
	l, err := wasiLinker(cc, trapUnknown)
	if err != nil {
		return "", err
	}
	h, err := preview2.Bind(s, cfg, preview2.WithHTTP(hc))
	if err != nil {
		return "", err
	}
	defer h.Close()
	in, err := l.Instantiate(ctx, s, cc)
	if err != nil {
		if errors.Is(err, component.ErrMissingImport) {
			return "", fmt.Errorf("%w (kobako run provides WASI 0.2 and wasi:http to components, no other host interfaces; --trap-unknown-imports makes the others trap when called)", err)
		}
		return "", err
	}
	fn, err := in.Func(call.Func)
	if err != nil {
		if errors.Is(err, component.ErrNoExport) {
			return "", &usageError{fmt.Errorf("--invoke %s: %w (exported functions: %s)", clipExpr(expr), err, listOrNone(componentFuncs(cc.Decoded())))}
		}
		return "", err
	}
	ft := fn.Type()
	params := ft.Params()
	types := make([]abi.Type, len(params))
	for i, p := range params {
		types[i] = p.Type
	}
	args, err := wave.ParseArgs(types, call)
	if err != nil {
		return "", &usageError{fmt.Errorf("--invoke %s: %w (%s: %s)", clipExpr(expr), err, call.Func, ft)}
	}
	res, err := fn.Call(ctx, args...)
	if err != nil {
		return "", err
	}
	if len(res) == 0 {
		return "", nil
	}
	return wave.FormatResults(ft.Results(), res), nil
}

// componentFuncs lists the names --invoke accepts for c's exported functions: root functions
// plainly, those of exported instances as "iface#f".
func componentFuncs(c *binary.Component) []string {
	var names []string
	for _, ex := range c.Exports {
		switch ex.Type.Sort {
		case binary.SortFunc:
			names = append(names, ex.Name.Raw)
		case binary.SortInstance:
			if ex.Type.Instance == nil {
				continue
			}
			for _, d := range ex.Type.Instance.Exports {
				if d.Type.Sort == binary.SortFunc {
					names = append(names, ex.Name.Raw+"#"+d.Name.Raw)
				}
			}
		}
	}
	return names
}

// coreTypes maps core wasm value types to the component value types whose WAVE text reads and
// writes them: integers as signed, as wasmtime's --invoke prints them.
var coreTypes = map[engine.ValueType]abi.Type{engine.I32: abi.S32, engine.I64: abi.S64, engine.F32: abi.F32, engine.F64: abi.F64}

// invokeCore instantiates a core module with WASI preview 1 as `kobako run` does for _start, runs
// _initialize if it is a reactor, and calls the export expr names.
func invokeCore(ctx context.Context, e *engine.Engine, s *engine.Store, wasmBytes []byte, expr string, cfg wasi.Config, limits engine.Limits) (string, error) {
	name, call, err := parseCoreCall(expr)
	if err != nil {
		return "", &usageError{fmt.Errorf("--invoke %s: %w", clipExpr(expr), err)}
	}
	m, err := e.Compile(ctx, wasmBytes)
	if err != nil {
		return "", err
	}
	var desc *engine.ExportDesc
	var funcs []string
	for _, d := range m.Exports() {
		if d.Kind != engine.ExternFunc {
			continue
		}
		funcs = append(funcs, d.Name)
		if d.Name == name {
			desc = &d
		}
	}
	if desc == nil {
		return "", &usageError{fmt.Errorf("--invoke %s: no exported function %q (exported functions: %s)", clipExpr(expr), name, listOrNone(funcs))}
	}
	sig := waveSignature(desc)
	params := make([]abi.Type, len(desc.Params))
	for i, vt := range desc.Params {
		t, ok := coreTypes[vt]
		if !ok {
			return "", &usageError{fmt.Errorf("--invoke %s: parameter %d of %s is a %s, which has no WAVE form (%s: %s)", clipExpr(expr), i+1, name, vt, name, sig)}
		}
		params[i] = t
	}
	results := make([]abi.Type, len(desc.Results))
	for i, vt := range desc.Results {
		t, ok := coreTypes[vt]
		if !ok {
			return "", &usageError{fmt.Errorf("--invoke %s: result %d of %s is a %s, which has no WAVE form (%s: %s)", clipExpr(expr), i+1, name, vt, name, sig)}
		}
		results[i] = t
	}
	vals, err := wave.ParseArgs(params, call)
	if err != nil {
		return "", &usageError{fmt.Errorf("--invoke %s: %w (%s: %s)", clipExpr(expr), err, name, sig)}
	}
	flat := make([]uint64, len(vals))
	for i, v := range vals {
		flat[i] = toCore(desc.Params[i], v)
	}

	if _, err := preview1.Bind(s, cfg); err != nil { // closed with the store
		return "", err
	}
	inst, err := s.Instantiate(ctx, m, engine.Imports{preview1.ModuleName: preview1.Module})
	if err != nil {
		return "", err
	}
	if _, err := inst.Function("_initialize"); err == nil && name != "_initialize" {
		// A reactor's exports may rely on what _initialize sets up (a Go or C runtime), as
		// wasmtime assumes too.
		if _, err := inst.Call(ctx, "_initialize"); err != nil {
			return "", err
		}
	}
	raw, err := inst.Call(ctx, name, flat...)
	if err != nil {
		return "", err
	}
	if len(raw) != len(results) {
		return "", fmt.Errorf("%s returned %d results, its type says %d", name, len(raw), len(results))
	}
	if len(raw) == 0 {
		return "", nil
	}
	out := make([]abi.Value, len(raw))
	for i, r := range raw {
		out[i] = fromCore(desc.Results[i], r)
	}
	return wave.FormatResults(results, out), nil
}

// parseCoreCall splits a call expression whose function is a core export. Core export names are
// any string, not kebab-case labels as WAVE's call syntax wants, so the name (everything up to
// the '(') is read here and stands in as a same-length label for wave.ParseCall, which keeps
// every byte offset of its errors true to expr.
func parseCoreCall(expr string) (string, wave.Call, error) {
	start := len(expr) - len(strings.TrimLeft(expr, " \t\r\n"))
	end := start
	for end < len(expr) && expr[end] != '(' && !strings.ContainsRune(" \t\r\n", rune(expr[end])) {
		end++
	}
	name := expr[start:end]
	call, err := wave.ParseCall(expr[:start] + strings.Repeat("x", len(name)) + expr[end:])
	if err != nil {
		var we *wave.Error
		if errors.As(err, &we) && we.Line == 1 && we.Offset >= end {
			// Columns count characters: a non-ASCII name is fewer of them than its stand-in.
			we.Column -= len(name) - utf8.RuneCountInString(name)
		}
		return "", wave.Call{}, err
	}
	call.Func = name
	return name, call, nil
}

// waveSignature writes a core export's type in the WIT spelling its WAVE arguments are read in
// (coreTypes: i32 as s32, i64 as s64), so that an error names the same types throughout; a type
// with no WAVE form keeps its core name.
func waveSignature(d *engine.ExportDesc) string {
	join := func(ts []engine.ValueType) []string {
		s := make([]string, len(ts))
		for i, t := range ts {
			if at, ok := coreTypes[t]; ok {
				s[i] = at.String()
			} else {
				s[i] = t.String()
			}
		}
		return s
	}
	params := join(d.Params)
	for i := range params {
		params[i] = fmt.Sprintf("p%d: %s", i, params[i])
	}
	sig := "func(" + strings.Join(params, ", ") + ")"
	switch res := join(d.Results); len(res) {
	case 0:
	case 1:
		sig += " -> " + res[0]
	default:
		sig += " -> tuple<" + strings.Join(res, ", ") + ">"
	}
	return sig
}

// clipExpr quotes an --invoke expression for an error message, shortened to its first 80
// characters: the error's line and column say where the problem is.
func clipExpr(expr string) string {
	const max = 80
	if utf8.RuneCountInString(expr) <= max {
		return strconv.Quote(expr)
	}
	r := []rune(expr)
	return strconv.Quote(string(r[:max])) + fmt.Sprintf("… (%d bytes)", len(expr))
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// toCore encodes a value parsed as coreTypes[t] in the uint64 form engine calls take.
func toCore(t engine.ValueType, v abi.Value) uint64 {
	switch t {
	case engine.I32:
		return uint64(uint32(int32(v.Int())))
	case engine.F32:
		return uint64(math.Float32bits(float32(v.Float())))
	case engine.F64:
		return math.Float64bits(v.Float())
	}
	return uint64(v.Int())
}

// fromCore decodes an engine result of type t as a value of coreTypes[t].
func fromCore(t engine.ValueType, r uint64) abi.Value {
	switch t {
	case engine.I32:
		return abi.S32Value(int32(uint32(r)))
	case engine.F32:
		return abi.F32Value(math.Float32frombits(uint32(r)))
	case engine.F64:
		return abi.F64Value(math.Float64frombits(r))
	}
	return abi.S64Value(int64(r))
}
