package binary

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeFixture(t testing.TB, name string) *Component {
	t.Helper()
	c, err := Decode(readFixture(t, name))
	if err != nil {
		t.Fatalf("Decode(%s): %v", name, err)
	}
	return c
}

// countDefs counts the definitions of each Go type.
func countDefs(defs []Definition) map[string]int {
	m := map[string]int{}
	for _, d := range defs {
		m[strings.TrimPrefix(typeName(d), "*component.")]++
	}
	return m
}

func typeName(v any) string {
	switch v.(type) {
	case *CoreModule:
		return "CoreModule"
	case *CoreInstance:
		return "CoreInstance"
	case *CoreTypeDef:
		return "CoreTypeDef"
	case *NestedComponent:
		return "NestedComponent"
	case *Instance:
		return "Instance"
	case *Alias:
		return "Alias"
	case *TypeDef:
		return "TypeDef"
	case *Canon:
		return "Canon"
	case *Start:
		return "Start"
	case *Import:
		return "Import"
	case *Export:
		return "Export"
	}
	return "?"
}

func declNamesOf(ds []ExternDecl) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name.Raw)
	}
	return out
}

func funcString(t *testing.T, c *Component, export string) string {
	t.Helper()
	e, ok := c.Type.Export(export)
	if !ok {
		t.Fatalf("no export %q", export)
	}
	if e.Type.Sort != SortFunc {
		t.Fatalf("export %q is a %s", export, e.Type.Sort)
	}
	return e.Type.Func.String()
}

func canons(c *Component) []*Canon {
	var out []*Canon
	for _, d := range c.Definitions {
		if cn, ok := d.(*Canon); ok {
			out = append(out, cn)
		}
	}
	return out
}

func TestDecodePlugin(t *testing.T) {
	c := decodeFixture(t, "plugin.wasm")
	if got := countDefs(c.Definitions); got["CoreModule"] != 1 || got["CoreInstance"] != 1 || got["Canon"] != 2 || got["Export"] != 1 {
		t.Errorf("definitions = %v", got)
	}
	mod := c.CoreModules[0].Type
	var exports []string
	for _, e := range mod.Exports {
		exports = append(exports, e.Name+":"+e.Type.Kind.String())
	}
	if want := []string{"memory:memory", "cabi_realloc:func", "name:func", "execute:func", "post:func"}; !slices.Equal(exports, want) {
		t.Errorf("module exports = %v, want %v", exports, want)
	}
	if len(c.CoreModules[0].Def.(*CoreModule).Bytes) == 0 {
		t.Error("core module bytes not kept")
	}
	cs := canons(c)
	exec := cs[1]
	if exec.Kind != CanonLift || exec.Func.String() != "func(args: string) -> result<string, string>" {
		t.Fatalf("second canon = %v %v", exec.Kind, exec.Func)
	}
	if o := exec.Options; !o.HasMemory || !o.HasRealloc || !o.HasPostReturn || o.StringEncoding != abi.UTF8 {
		t.Errorf("execute options = %+v", o)
	}
	if got := exec.CoreType.String(); got != "[i32 i32] -> [i32]" {
		t.Errorf("execute core type = %s", got)
	}
	if len(c.Imports) != 0 || len(c.Exports) != 1 {
		t.Fatalf("imports %d exports %d", len(c.Imports), len(c.Exports))
	}
	tool := c.Exports[0]
	if tool.Name.Kind != NameInterface || tool.Name.Namespace != "test" || tool.Name.Package != "plugin" || tool.Name.Interface != "tool" {
		t.Errorf("export name = %+v", tool.Name)
	}
	if got := declNamesOf(tool.Type.Instance.Exports); !slices.Equal(got, []string{"name", "execute"}) {
		t.Errorf("tool exports = %v", got)
	}
}

func TestDecodeSections(t *testing.T) {
	c := decodeFixture(t, "sections.wasm")
	got := countDefs(c.Definitions)
	for kind, min := range map[string]int{"CoreModule": 2, "CoreInstance": 5, "CoreTypeDef": 2, "NestedComponent": 1,
		"Instance": 2, "Alias": 10, "TypeDef": 1, "Canon": 5, "Import": 5, "Export": 8} {
		if got[kind] < min {
			t.Errorf("%d %s definitions, want at least %d (all: %v)", got[kind], kind, min, got)
		}
	}
	var customs []string
	for _, cs := range c.Custom {
		customs = append(customs, cs.Name+"="+string(cs.Data))
	}
	if !slices.Contains(customs, "kobako-note=every section kind") || !slices.Contains(customs, "kobako-trailer=the last section") {
		t.Errorf("custom sections = %v", customs)
	}
	var aliasKinds [3]int
	for _, d := range c.Definitions {
		if a, ok := d.(*Alias); ok {
			aliasKinds[a.Kind]++
		}
	}
	if aliasKinds[AliasInstanceExport] == 0 || aliasKinds[AliasCoreInstanceExport] == 0 {
		t.Errorf("alias kinds = %v", aliasKinds)
	}
	// the module type with an outer alias of the core function type
	lt := c.CoreTypes[1].Type.(*ModuleType)
	if len(lt.Imports) != 1 || lt.Imports[0].Type.Kind != CoreExternGlobal || len(lt.Exports) != 3 {
		t.Errorf("libc module type = %+v", lt)
	}
	if d, ok := lt.Export("double"); !ok || d.Type.Func.String() != "[i32] -> [i32]" {
		t.Errorf("libc double = %+v", d)
	}
	var sorts []string
	for _, im := range c.Imports {
		sorts = append(sorts, im.Name.Raw+":"+im.Type.Sort.String())
	}
	if want := []string{"libc:core module", "log:func", "kobako:demo/clock@1.2.3:instance", "plugin:component", "handle:type"}; !slices.Equal(sorts, want) {
		t.Errorf("imports = %v, want %v", sorts, want)
	}
	clock := c.Imports[2].Name
	if clock.Version != "1.2.3" || clock.Unversioned() != "kobako:demo/clock" {
		t.Errorf("clock name = %+v", clock)
	}
	// the nested component: outer aliases of every allowed sort, and its own nested component
	inner := c.Components[1].Def.(*NestedComponent).Component
	outer := 0
	for _, d := range inner.Definitions {
		if a, ok := d.(*Alias); ok && a.Kind == AliasOuter {
			outer++
		}
	}
	if outer != 4 {
		t.Errorf("nested component has %d outer aliases, want 4", outer)
	}
	if got := declNamesOf(inner.Type.Exports); !slices.Equal(got, []string{"y", "deeper"}) {
		t.Errorf("nested component exports %v", got)
	}
	// the ascribed export narrows the instance to one function
	view, ok := c.Type.Export("kobako:demo/api-view@0.1.0")
	if !ok || len(view.Type.Instance.Exports) != 1 {
		t.Fatalf("api-view = %+v", view)
	}
	if !c.Exports[len(c.Exports)-1].Ascribed {
		t.Error("last export should be ascribed")
	}
	api, _ := c.Type.Export("kobako:demo/api@0.1.0")
	if got := declNamesOf(api.Type.Instance.Exports); !slices.Equal(got, []string{"add", "now", "y"}) {
		t.Errorf("api exports %v", got)
	}
	// imports and exports both add to index spaces
	fromImport, fromExport := 0, 0
	for _, it := range c.Types {
		switch it.Def.(type) {
		case *Import:
			fromImport++
		case *Export:
			fromExport++
		}
	}
	if fromImport != 1 || fromExport != 2 {
		t.Errorf("type indices from imports %d, exports %d; want 1 and 2", fromImport, fromExport)
	}
}

func TestDecodeStart(t *testing.T) {
	c := decodeFixture(t, "start.wasm")
	st, ok := c.Definitions[len(c.Definitions)-1].(*Start)
	if !ok {
		t.Fatalf("last definition is %T", c.Definitions[len(c.Definitions)-1])
	}
	if st.Func != 0 || len(st.Args) != 0 || st.Results != 0 {
		t.Errorf("start = %+v", st)
	}
}

func TestDecodeTypes(t *testing.T) {
	c := decodeFixture(t, "types.wasm")
	// the primitives, defined one after the other, then the first defined value types
	first := -1
	for i, it := range c.Types {
		if it.Type == Bool {
			first = i
			break
		}
	}
	want := []string{"bool", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "f32", "f64", "char", "string",
		"record { x: s32, y: s32, label: string }", "record { x: s32, y: s32, label: string }",
		"list<record { x: s32, y: s32, label: string }>"}
	if first < 0 || first+len(want) > len(c.Types) {
		t.Fatalf("no bool type definition in %d types", len(c.Types))
	}
	for i, w := range want {
		if got := c.Types[first+i].Type.String(); got != w {
			t.Errorf("type %d = %s, want %s", first+i, got, w)
		}
	}
	byString := map[string]Type{}
	for _, it := range c.Types {
		byString[it.Type.String()] = it.Type
	}
	for _, s := range []string{"tuple<u8, string, option<char>>", "flags { read, write, exec, admin }",
		"result<u32, string>", "result<u32>", "result<_, enum { red, green, blue }>", "result",
		"own<file>", "borrow<file>", "option<record { x: s32, y: s32, label: string }>",
		"variant { circle(f64), poly(list<record { x: s32, y: s32, label: string }>), empty }"} {
		if byString[s] == nil {
			t.Errorf("no type %s", s)
		}
	}
	// handles refer to the resource the imported instance exports
	fs, _ := c.Type.Import("kobako:demo/fs@0.2.0")
	fileExport, _ := fs.Type.Instance.Export("file")
	file := fileExport.Type.Type.(*ResourceType).Resource
	if o := byString["own<file>"].(*OwnType); o.Resource.Resource != file {
		t.Error("own<file> does not refer to the imported file resource")
	}
	if file.Local {
		t.Error("an imported resource is not local")
	}
	// the local resources: counter with a destructor, token without
	var counter, token *Resource
	for _, it := range c.Types {
		if rt, ok := it.Type.(*ResourceType); ok && rt.Resource.Local {
			if rt.Resource.HasDtor {
				counter = rt.Resource
			} else {
				token = rt.Resource
			}
		}
	}
	if counter == nil || token == nil || counter.Rep != CoreI32 || counter.Name != "counter" {
		t.Fatalf("local resources counter=%+v token=%+v", counter, token)
	}
	// resource built-ins and string encodings
	kinds := map[CanonKind]int{}
	encodings := map[abi.StringEncoding]bool{}
	for _, cn := range canons(c) {
		kinds[cn.Kind]++
		if cn.Kind == CanonLift || cn.Kind == CanonLower {
			encodings[cn.Options.StringEncoding] = true
		}
		if cn.Kind == CanonResourceNew && cn.Resource.Resource != counter {
			t.Error("resource.new is not on counter")
		}
	}
	if kinds[CanonResourceNew] != 1 || kinds[CanonResourceRep] != 1 || kinds[CanonResourceDrop] < 5 || kinds[CanonLift] < 5 || kinds[CanonLower] < 3 {
		t.Errorf("canon kinds = %v", kinds)
	}
	if !encodings[abi.UTF8] || !encodings[abi.UTF16] || !encodings[abi.Latin1UTF16] {
		t.Errorf("string encodings = %v", encodings)
	}
	// the imported component type and its instantiation
	pluginImport, _ := c.Type.Import("plugin")
	plugin := pluginImport.Type.Component
	if got := declNamesOf(plugin.Imports); !slices.Equal(got, []string{"host", "run", "lib"}) {
		t.Errorf("plugin imports %v", got)
	}
	if got := declNamesOf(plugin.Exports); !slices.Equal(got, []string{"out", "make", "nested"}) {
		t.Errorf("plugin exports %v", got)
	}
	var inst *InstanceType
	for _, it := range c.Instances {
		if d, ok := it.Def.(*Instance); ok && !d.FromExports {
			inst = it.Type
		}
	}
	out, _ := inst.Export("out")
	outRes := out.Type.Type.(*ResourceType).Resource
	if outRes == counter || outRes == file || outRes.Local {
		t.Error("an instance's exported resource must be a fresh abstract resource")
	}
	mk, _ := inst.Export("make")
	if mk.Type.Func.Result.(*OwnType).Resource.Resource != outRes {
		t.Error("make must return the instance's fresh out resource")
	}
	// the exported constructor refers to the exported name of counter
	ctor, _ := c.Type.Export("[constructor]counter")
	if ctor.Type.Func.Result.(*OwnType).Resource.Resource != counter {
		t.Error("[constructor]counter does not return own<counter>")
	}
	// defined value types keep their layout-relevant structure
	if v := byString["variant { circle(f64), poly(list<record { x: s32, y: s32, label: string }>), empty }"].(ValType); Depth(v) != 4 {
		t.Errorf("variant depth = %d", Depth(v))
	}
}

func TestDecodeWitComponent(t *testing.T) {
	c := decodeFixture(t, "fixture.wasm")
	if got := declNamesOf(c.Type.Imports); !slices.Equal(got, []string{"kobako:fixture/host@0.1.0", "logger", "now"}) {
		t.Errorf("imports %v", got)
	}
	if got := declNamesOf(c.Type.Exports); !slices.Equal(got, []string{"use-logger", "run", "kobako:fixture/api@0.1.0"}) {
		t.Errorf("exports %v", got)
	}
	host := c.Imports[0].Type.Instance
	logger, _ := host.Export("logger")
	loggerRes := logger.Type.Type.(*ResourceType).Resource
	ctor, _ := host.Export("[constructor]logger")
	if ctor.Type.Func.String() != "func(name: string) -> own<logger>" || ctor.Type.Func.Result.(*OwnType).Resource.Resource != loggerRes {
		t.Errorf("[constructor]logger = %s", ctor.Type.Func)
	}
	if got := funcString(t, c, "use-logger"); got != "func(l: borrow<logger>) -> u32" {
		t.Errorf("use-logger = %s", got)
	}
	api, _ := c.Type.Export("kobako:fixture/api@0.1.0")
	want := map[string]string{
		"prims":    "func(a: bool, b: s8, c: u8, d: s16, e: u16, f: s32, g: u32, h: s64, i: u64, j: f32, k: f64, l: char, m: string) -> string",
		"pair":     "func() -> tuple<string, u64>",
		"nested":   "func(o: option<option<s8>>, r: result<_, string>, e: result) -> option<char>",
		"compound": "func(p: record { x: s32, y: s32 }, s: variant { circle(f64), rect(record { x: s32, y: s32 }), none }, c: enum { red, green, blue }, f: flags { read, write, exec }, l: list<record { x: s32, y: s32 }>, t: tuple<u8, string>, o: option<u32>, r: result<u32>) -> result<variant { circle(f64), rect(…), none }, string>",
	}
	for name, w := range want {
		d, ok := api.Type.Instance.Export(name)
		if !ok || d.Type.Func.String() != w {
			t.Errorf("%s = %v, want %s", name, d.Type.Func, w)
		}
	}
	// the lifted functions have the flattened core signatures
	sigs := map[string]string{}
	for _, cn := range canons(c) {
		if cn.Kind == CanonLift {
			sigs[cn.Func.String()] = cn.CoreType.String()
		}
	}
	for f, sig := range map[string]string{
		want["prims"]:    "[i32 i32 i32 i32 i32 i32 i32 i64 i64 f32 f64 i32 i32 i32] -> [i32]",
		want["compound"]: "[i32 i32 i32 i64 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32] -> [i32]",
		"func(p0: u32, p1: u32, p2: u32, p3: u32, p4: u32, p5: u32, p6: u32, p7: u32, p8: u32, p9: u32, p10: u32, p11: u32, p12: u32, p13: u32, p14: u32, p15: u32, p16: u32) -> u32": "[i32] -> [i32]",
	} {
		if sigs[f] != sig {
			t.Errorf("core signature of %s = %s, want %s", f, sigs[f], sig)
		}
	}
	// the exported instance comes from the shim component: its counter resource must be the one
	// defined in this component (bound through instantiation), not a fresh one
	counterExp, _ := api.Type.Instance.Export("counter")
	counter := counterExp.Type.Type.(*ResourceType).Resource
	if !counter.Local || !counter.HasDtor {
		t.Errorf("exported counter = %+v, want the local resource with its destructor", counter)
	}
	merge, _ := api.Type.Instance.Export("[static]counter.merge")
	if merge.Type.Func.Result.(*OwnType).Resource.Resource != counter {
		t.Error("[static]counter.merge does not return own<counter>")
	}
	shim := 0
	for _, d := range c.Definitions {
		if _, ok := d.(*NestedComponent); ok {
			shim++
		}
	}
	if shim != 1 {
		t.Errorf("%d nested components, want the shim", shim)
	}
}

func TestDecodeWASIHello(t *testing.T) {
	c := decodeFixture(t, "hello.wasm")
	var names []string
	for _, im := range c.Imports {
		if im.Name.Kind != NameInterface || im.Name.Version != "0.2.12" {
			t.Errorf("import %s: %+v", im.Name, im.Name)
		}
		names = append(names, im.Name.Unversioned())
	}
	for _, want := range []string{"wasi:cli/environment", "wasi:cli/exit", "wasi:io/error", "wasi:io/streams",
		"wasi:cli/stdin", "wasi:cli/stdout", "wasi:cli/stderr", "wasi:clocks/wall-clock", "wasi:filesystem/types",
		"wasi:filesystem/preopens"} {
		if !slices.Contains(names, want) {
			t.Errorf("no import %s in %v", want, names)
		}
	}
	if got := declNamesOf(c.Type.Exports); !slices.Equal(got, []string{"wasi:cli/run@0.2.12"}) {
		t.Fatalf("exports %v", got)
	}
	run, _ := c.Exports[0].Type.Instance.Export("run")
	if run.Type.Func.String() != "func() -> result" {
		t.Errorf("run = %s", run.Type.Func)
	}
	streams, _ := c.Type.Import("wasi:io/streams@0.2.12")
	write, ok := streams.Type.Instance.Export("[method]output-stream.blocking-write-and-flush")
	if !ok || !strings.HasPrefix(write.Type.Func.String(), "func(self: borrow<output-stream>, contents: list<u8>) -> result<_, variant") {
		t.Errorf("blocking-write-and-flush = %v", write.Type.Func)
	}
	if len(c.CoreModules) < 3 {
		t.Errorf("%d core modules, want the program, the adapter and the shims", len(c.CoreModules))
	}
}

// TestDecodeLargeComponents decodes Go, JavaScript, C and WAT builds of a test:plugin/tool
// component from $KOBAKO_TOOLCHAIN_OUT (default ~/.cache/kobako-toolchain/out); they are too
// large to commit, so the test skips when they are absent.
func TestDecodeLargeComponents(t *testing.T) {
	dir := os.Getenv("KOBAKO_TOOLCHAIN_OUT")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "kobako-toolchain", "out")
	}
	found := 0
	for _, name := range []string{"go-plugin.component.wasm", "js-plugin.component.wasm", "c-plugin.component.wasm", "wat-plugin.component.wasm"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		found++
		c, err := Decode(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, ok := c.Type.Export("test:plugin/tool"); !ok {
			t.Errorf("%s: no test:plugin/tool export", name)
		}
	}
	if found == 0 {
		t.Skipf("no components in %s: set KOBAKO_TOOLCHAIN_OUT to a directory holding go-plugin.component.wasm, js-plugin.component.wasm, c-plugin.component.wasm or wat-plugin.component.wasm (builds of a component exporting test:plugin/tool)", dir)
	}
}

func TestDecodeRefusesOutOfScope(t *testing.T) {
	files, _ := filepath.Glob("../testdata/refuse/*.wasm")
	if len(files) < 15 {
		t.Fatalf("only %d refusal fixtures", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, _ := os.ReadFile(f)
			_, err := Decode(b)
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("err = %v, want ErrUnsupported", err)
			}
			// the fixture's first line names the feature; the message must name it too
			src, _ := os.ReadFile(strings.TrimSuffix(f, ".wasm") + ".wat")
			feature := strings.TrimPrefix(strings.SplitN(string(src), "\n", 2)[0], ";; Out of scope: ")
			key := strings.Fields(strings.TrimPrefix(feature, "the "))[0]
			if !strings.Contains(err.Error(), key) {
				t.Errorf("error %q does not name %q", err, key)
			}
		})
	}
}

func TestDecode_Errors(t *testing.T) {
	files, _ := filepath.Glob("../testdata/invalid/*.wasm")
	if len(files) < 40 {
		t.Fatalf("only %d invalid fixtures", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, _ := os.ReadFile(f)
			_, err := Decode(b)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 8 || de.Offset > len(b) {
				t.Errorf("error %v has no offset inside the input", err)
			}
			src, _ := os.ReadFile(strings.TrimSuffix(f, ".wasm") + ".wat")
			want := strings.TrimPrefix(strings.SplitN(string(src), "\n", 2)[0], ";; expect: ")
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		})
	}
}
