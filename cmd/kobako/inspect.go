package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

// inspectCommand prints what a WebAssembly file imports and exports: a component's world as WIT,
// or a core module's imports, exports, memories, post-MVP features and custom sections.
func inspectCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kobako inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: kobako inspect FILE.wasm\n\nPrints a component's imports and exports as WIT, or a core module's imports and exports.\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	name := fs.Arg(0)
	b, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	text, err := inspectWasm(b)
	if err != nil {
		fmt.Fprintf(stderr, "error: inspect %s: %v\n", name, err)
		return exitError
	}
	fmt.Fprint(stdout, text)
	return 0
}

// inspectWasm describes a component or a core module.
func inspectWasm(b []byte) (string, error) {
	if component.IsComponent(b) {
		c, err := component.Decode(b)
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
