package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

const inspectUsage = `Usage: kobako inspect [--json] FILE.wasm

Prints a component's imports and exports as WIT, or a core module's imports, exports, memories,
post-MVP features and custom sections.
`

// inspectCommand prints what a WebAssembly file imports and exports: a component's world as WIT,
// or a core module's imports, exports, memories, post-MVP features and custom sections.
func inspectCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("kobako inspect", inspectUsage, stdout, stderr)
	asJSON := c.Bool("json", false, "print one JSON object instead of text")
	pos, code := c.parse(args, true)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.usageErr("want one FILE.wasm, got %d arguments", len(pos))
	}
	name := pos[0]
	b, err := readWasmFile(name)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	var text string
	if *asJSON {
		var v any
		if v, err = inspectJSON(b); err == nil {
			var out []byte
			out, err = json.MarshalIndent(v, "", "  ")
			text = string(out) + "\n"
		}
	} else {
		text, err = inspectWasm(b)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %s: %v\n", name, err)
		return exitError
	}
	fmt.Fprint(stdout, text)
	return 0
}

// inspectWasm describes a component or a core module.
func inspectWasm(b []byte) (string, error) {
	if binary.IsComponent(b) {
		c, err := binary.Decode(b)
		if err != nil {
			return "", err
		}
		return c.WIT(), nil
	}
	info, err := engine.Inspect(b)
	if err != nil {
		return "", err
	}
	return formatModuleInfo(info), nil
}

// inspectExtern is one import or export in --json output. Type is a core function's signature in
// the text format's spelling.
type inspectExtern struct {
	Kind   string `json:"kind"`
	Module string `json:"module,omitempty"`
	Name   string `json:"name"`
	Type   string `json:"type,omitempty"`
}

// inspectJSON is what --json prints: for a component its imports and exports by name and sort,
// the functions --invoke can call, and the WIT text; for a core module the same facts the text
// form lists.
func inspectJSON(b []byte) (any, error) {
	if binary.IsComponent(b) {
		c, err := binary.Decode(b)
		if err != nil {
			return nil, err
		}
		imports, exports := []inspectExtern{}, []inspectExtern{}
		for _, im := range c.Imports {
			imports = append(imports, inspectExtern{Kind: im.Type.Sort.String(), Name: im.Name.Raw})
		}
		for _, ex := range c.Exports {
			exports = append(exports, inspectExtern{Kind: ex.Type.Sort.String(), Name: ex.Name.Raw})
		}
		funcs := componentFuncs(c)
		if funcs == nil {
			funcs = []string{}
		}
		return map[string]any{"kind": "component", "imports": imports, "exports": exports, "functions": funcs, "wit": c.WIT()}, nil
	}
	info, err := engine.Inspect(b)
	if err != nil {
		return nil, err
	}
	imports, exports := []inspectExtern{}, []inspectExtern{}
	for _, im := range info.Imports {
		e := inspectExtern{Kind: im.Kind.String(), Module: im.Module, Name: im.Name}
		if im.Kind == engine.ExternFunc {
			e.Type = coreSig(im.Params, im.Results)
		}
		imports = append(imports, e)
	}
	for _, ex := range info.Exports {
		e := inspectExtern{Kind: ex.Kind.String(), Name: ex.Name}
		if ex.Kind == engine.ExternFunc {
			e.Type = coreSig(ex.Params, ex.Results)
		}
		exports = append(exports, e)
	}
	type memory struct {
		MinPages uint64  `json:"min_pages"`
		MaxPages *uint64 `json:"max_pages,omitempty"`
		Shared   bool    `json:"shared,omitempty"`
		Is64     bool    `json:"memory64,omitempty"`
	}
	mems := []memory{}
	for _, m := range info.Memories {
		mm := memory{MinPages: m.Min, Shared: m.Shared, Is64: m.Is64}
		if m.HasMax {
			mx := m.Max
			mm.MaxPages = &mx
		}
		mems = append(mems, mm)
	}
	features := []string{}
	seen := map[string]bool{}
	for _, f := range info.Features {
		if !seen[f.Feature] {
			seen[f.Feature] = true
			features = append(features, f.Feature)
		}
	}
	custom := info.CustomSections
	if custom == nil {
		custom = []string{}
	}
	return map[string]any{"kind": "core module", "imports": imports, "exports": exports, "memories": mems,
		"features": features, "custom_sections": custom}, nil
}

// formatModuleInfo renders a core module's interface one item a line, functions with their core
// signatures in the text format's spelling.
func formatModuleInfo(info *engine.ModuleInfo) string {
	var b strings.Builder
	b.WriteString("core module\n")
	b.WriteString("\nimports:\n")
	if len(info.Imports) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, im := range info.Imports {
		fmt.Fprintf(&b, "  %s %q %q", im.Kind, im.Module, im.Name)
		if im.Kind == engine.ExternFunc {
			b.WriteString(": " + coreSig(im.Params, im.Results))
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nexports:\n")
	if len(info.Exports) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, ex := range info.Exports {
		fmt.Fprintf(&b, "  %s %q", ex.Kind, ex.Name)
		if ex.Kind == engine.ExternFunc {
			b.WriteString(": " + coreSig(ex.Params, ex.Results))
		}
		b.WriteByte('\n')
	}
	if len(info.Memories) > 0 {
		b.WriteString("\nmemories:\n")
		for i, m := range info.Memories {
			fmt.Fprintf(&b, "  memory %d: %d pages minimum", i, m.Min)
			if m.HasMax {
				fmt.Fprintf(&b, ", %d maximum", m.Max)
			}
			if m.Shared {
				b.WriteString(", shared")
			}
			if m.Is64 {
				b.WriteString(", 64-bit")
			}
			b.WriteByte('\n')
		}
	}
	if len(info.Features) > 0 {
		// Inspect reports a few uses per feature; the first says enough for a reader.
		b.WriteString("\nfeatures beyond WebAssembly 1.0:\n")
		seen := map[string]bool{}
		for _, f := range info.Features {
			if !seen[f.Feature] {
				seen[f.Feature] = true
				fmt.Fprintf(&b, "  %s (first use: %s)\n", f.Feature, f.Where)
			}
		}
	}
	if len(info.CustomSections) > 0 {
		b.WriteString("\ncustom sections: " + strings.Join(info.CustomSections, ", ") + "\n")
	}
	return b.String()
}

func coreSig(params, results []engine.ValueType) string {
	join := func(ts []engine.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = t.String()
		}
		return strings.Join(s, " ")
	}
	sig := "(func"
	if len(params) > 0 {
		sig += " (param " + join(params) + ")"
	}
	if len(results) > 0 {
		sig += " (result " + join(results) + ")"
	}
	return sig + ")"
}
