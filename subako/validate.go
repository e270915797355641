package subako

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi/preview1"
)

// allowedFeatures are the post-MVP features of WebAssembly 2.0 that ABI 1 admits.
var allowedFeatures = map[string]bool{
	"bulk-memory": true, "reference-types": true, "multi-value": true, "sign-extension": true,
	"nontrapping-float-to-int": true, "simd": true, "mutable-global": true,
}

// featureNames spells the features ABI 1 refuses the way the document names them.
var featureNames = map[string]string{
	"threads": "threads (shared memory and atomics)", "exception-handling": "exceptions", "tail-call": "tail calls",
	"memory64": "memory64", "multi-memory": "multi-memory", "relaxed-simd": "relaxed SIMD", "gc": "GC",
	"function-references": "typed function references", "extended-const": "extended constant expressions",
}

// ValidationError lists every reason a module fails the ABI 1 upload checks.
type ValidationError struct {
	Problems []string
}

// Error joins the problems.
func (e *ValidationError) Error() string {
	return "subako: validate: " + ErrInvalidModule.Error() + ": " + strings.Join(e.Problems, "; ")
}

// Is matches ErrInvalidModule.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidModule }

// hostFuncs maps "module.name" to the signature the host provides.
var hostFuncs = func() map[string]engine.HostFunc {
	m := map[string]engine.HostFunc{}
	for _, hm := range []*engine.HostModule{preview1.Module, HTTPModule} {
		for _, f := range hm.Funcs {
			m[hm.Name+"."+f.Name] = f
		}
	}
	return m
}()

// Validate runs the ABI 1 upload checks on module.wasm and returns a *ValidationError naming every
// problem found: the binary must be a core module (not a component); export `_start` without
// parameters or results and a memory named `memory`; import only functions that
// wasi_snapshot_preview1 and subako_http provide, with their exact signatures; and use no feature
// beyond WebAssembly 2.0 without GC (bulk memory, reference types, multi-value, sign extension,
// non-trapping float-to-int, 128-bit SIMD). Function bodies are checked when the module is
// compiled.
func Validate(wasm []byte) error {
	info, err := engine.Inspect(wasm)
	if err != nil {
		if errors.Is(err, engine.ErrNotCoreModule) {
			return &ValidationError{Problems: []string{"this is a WebAssembly component, not a core module: ABI 1 takes a WASI preview 1 core module (wasm32-wasip1)"}}
		}
		return &ValidationError{Problems: []string{fmt.Sprintf("not a valid WebAssembly module: %v", err)}}
	}
	var probs []string
	var start, memory bool
	for _, ex := range info.Exports {
		switch ex.Name {
		case "_start":
			start = true
			if ex.Kind != engine.ExternFunc || len(ex.Params) != 0 || len(ex.Results) != 0 {
				probs = append(probs, fmt.Sprintf("export _start is %s, not a function without parameters or results", describeExport(ex)))
			}
		case "memory":
			memory = true
			if ex.Kind != engine.ExternMemory {
				probs = append(probs, fmt.Sprintf("export memory is a %s, not a memory", ex.Kind))
			}
		}
	}
	if !start {
		probs = append(probs, "missing export _start (a WASI command's entry point)")
	}
	if !memory {
		probs = append(probs, "missing export memory (the linear memory named \"memory\")")
	}
	for _, im := range info.Imports {
		where := fmt.Sprintf("import %s.%s", im.Module, im.Name)
		if im.Module != preview1.ModuleName && im.Module != HTTPModuleName {
			probs = append(probs, fmt.Sprintf("%s: module %q is not provided (only %s and %s are)", where, im.Module, preview1.ModuleName, HTTPModuleName))
			continue
		}
		if im.Kind != engine.ExternFunc {
			probs = append(probs, fmt.Sprintf("%s is a %s; the host provides only functions", where, im.Kind))
			continue
		}
		hf, ok := hostFuncs[im.Module+"."+im.Name]
		if !ok {
			probs = append(probs, fmt.Sprintf("%s: no such function is provided", where))
			continue
		}
		if !slices.Equal(hf.Params, im.Params) || !slices.Equal(hf.Results, im.Results) {
			probs = append(probs, fmt.Sprintf("%s: signature %s does not match the host's %s", where, sig(im.Params, im.Results), sig(hf.Params, hf.Results)))
		}
	}
	seen := map[string]bool{}
	for _, f := range info.Features {
		if allowedFeatures[f.Feature] {
			continue
		}
		if seen[f.Feature+f.Where] {
			continue
		}
		seen[f.Feature+f.Where] = true
		name := featureNames[f.Feature]
		if name == "" {
			name = f.Feature
		}
		probs = append(probs, fmt.Sprintf("feature %s is not allowed (ABI 1 is WebAssembly 2.0 without GC): used at %s", name, f.Where))
	}
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

func describeExport(ex engine.ExportDesc) string {
	if ex.Kind != engine.ExternFunc {
		return "a " + ex.Kind.String()
	}
	return "a function " + sig(ex.Params, ex.Results)
}

func sig(params, results []engine.ValueType) string {
	join := func(ts []engine.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = t.String()
		}
		return strings.Join(s, " ")
	}
	return "(" + join(params) + ") -> (" + join(results) + ")"
}
