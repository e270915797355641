package kobako

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kobako/kobako"

// listedPackage is the part of `go list -json` output the repository tests read.
type listedPackage struct {
	ImportPath   string
	Name         string
	Dir          string
	Export       string
	Imports      []string
	TestImports  []string
	XTestImports []string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Module       *struct{ Path string }
	Standard     bool
}

// goList runs `go list -json` with args in the module root and decodes its stream of packages.
func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list packages with: %v", err)
	}
	cmd := exec.Command(goBin, append([]string{"list", "-json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// isInternal reports whether path is one of the module's internal packages, which no program
// outside the module can import.
func isInternal(path string) bool {
	if path != module && !strings.HasPrefix(path, module+"/") {
		return false
	}
	return slices.Contains(strings.Split(path, "/"), "internal")
}

// isPublic reports whether p is a package a program outside the module can import and call.
func isPublic(p listedPackage) bool {
	return p.Module != nil && p.Module.Path == module && p.Name != "main" && len(p.GoFiles) > 0 &&
		!isInternal(p.ImportPath)
}

// TestAPI_NoInternalTypes fails when an exported name of a public package mentions a type declared
// in an internal package: an embedder could see such a type but could not name, build or convert
// it (issue 10: subako.CallOptions.Network once took an internal egress type, so no program outside
// the module could grant network access). Types are read from the compiler's export data, so the
// check sees exactly what importers see.
func TestAPI_NoInternalTypes(t *testing.T) {
	pkgs := goList(t, "-export", "-deps", "./...")
	exports := map[string]string{}
	var public []string
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
		if isPublic(p) {
			public = append(public, p.ImportPath)
		}
	}
	if !slices.Contains(public, module+"/egress") || !slices.Contains(public, module+"/engine") {
		t.Fatalf("public packages %v lack egress or engine; the listing is wrong", public)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f := exports[path]
		if f == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(f)
	})
	for _, path := range public {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		for _, problem := range internalMentions(pkg) {
			t.Error(problem)
		}
	}
}

// TestAPI_InternalMentionsFound keeps the check honest: a package whose exported API names an
// internal type is reported, through each place a type can appear.
func TestAPI_InternalMentionsFound(t *testing.T) {
	internal := types.NewPackage(module+"/internal/x", "x")
	secret := types.NewNamed(types.NewTypeName(token.NoPos, internal, "Secret", nil), types.Typ[types.Int], nil)
	public := types.NewPackage(module+"/pub", "pub")
	scope := public.Scope()
	field := types.NewField(token.NoPos, public, "F", types.NewPointer(secret), false)
	cfg := types.NewNamed(types.NewTypeName(token.NoPos, public, "Config", nil), types.NewStruct([]*types.Var{field}, nil), nil)
	scope.Insert(cfg.Obj())
	sig := types.NewSignatureType(nil, nil, nil,
		types.NewTuple(types.NewParam(token.NoPos, public, "m", types.NewMap(types.Typ[types.String], types.NewSlice(secret)))), nil, false)
	scope.Insert(types.NewFunc(token.NoPos, public, "Use", sig))
	scope.Insert(types.NewVar(token.NoPos, public, "V", types.NewChan(types.SendRecv, secret)))
	// An unexported field or function may name it: only what importers see counts.
	hidden := types.NewField(token.NoPos, public, "f", secret, false)
	ok := types.NewNamed(types.NewTypeName(token.NoPos, public, "OK", nil), types.NewStruct([]*types.Var{hidden}, nil), nil)
	scope.Insert(ok.Obj())
	scope.Insert(types.NewFunc(token.NoPos, public, "use", sig))

	got := internalMentions(public)
	want := []string{"pub.Config field F", "pub.Use", "pub.V"}
	if len(got) != len(want) {
		t.Fatalf("got %d reports %q, want %d (%v)", len(got), got, len(want), want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+":") {
			t.Errorf("report %d = %q, want it to start with %q", i, got[i], w)
		}
	}
}

// internalMentions lists every exported name of pkg whose type mentions an internal type.
func internalMentions(pkg *types.Package) []string {
	var out []string
	report := func(where string, t types.Type) {
		if n := internalIn(t, map[types.Type]bool{}); n != "" {
			out = append(out, fmt.Sprintf("%s: mentions %s, an internal type", where, n))
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		where := pkg.Name() + "." + name
		tn, ok := obj.(*types.TypeName)
		if !ok {
			report(where, obj.Type())
			continue
		}
		if tn.IsAlias() {
			report(where, types.Unalias(tn.Type()))
			continue
		}
		named, _ := tn.Type().(*types.Named)
		if named == nil {
			continue
		}
		switch u := named.Underlying().(type) {
		case *types.Struct:
			for i := range u.NumFields() {
				if f := u.Field(i); f.Exported() {
					report(where+" field "+f.Name(), f.Type())
				}
			}
		case *types.Interface:
			for i := range u.NumMethods() {
				if m := u.Method(i); m.Exported() {
					report(where+"."+m.Name(), m.Type())
				}
			}
			for i := range u.NumEmbeddeds() {
				report(where+" embedded", u.EmbeddedType(i))
			}
		default:
			report(where, u)
		}
		for i := range named.NumMethods() {
			if m := named.Method(i); m.Exported() {
				report(where+"."+m.Name(), m.Type())
			}
		}
	}
	return out
}

// internalIn returns the name of an internal type that t is or is built from, or "". Named types
// of other packages are not looked into: a public package's own exports are checked on their own.
func internalIn(t types.Type, seen map[types.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		return internalIn(types.Unalias(t), seen)
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil && isInternal(p.Path()) {
			return p.Path() + "." + t.Obj().Name()
		}
		if args := t.TypeArgs(); args != nil {
			for i := range args.Len() {
				if n := internalIn(args.At(i), seen); n != "" {
					return n
				}
			}
		}
		return ""
	case *types.Pointer:
		return internalIn(t.Elem(), seen)
	case *types.Slice:
		return internalIn(t.Elem(), seen)
	case *types.Array:
		return internalIn(t.Elem(), seen)
	case *types.Chan:
		return internalIn(t.Elem(), seen)
	case *types.Map:
		if n := internalIn(t.Key(), seen); n != "" {
			return n
		}
		return internalIn(t.Elem(), seen)
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				if n := internalIn(tup.At(i).Type(), seen); n != "" {
					return n
				}
			}
		}
		return ""
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() || f.Embedded() {
				if n := internalIn(f.Type(), seen); n != "" {
					return n
				}
			}
		}
		return ""
	case *types.Interface:
		for i := range t.NumMethods() {
			if n := internalIn(t.Method(i).Type(), seen); n != "" {
				return n
			}
		}
		for i := range t.NumEmbeddeds() {
			if n := internalIn(t.EmbeddedType(i), seen); n != "" {
				return n
			}
		}
		return ""
	case *types.TypeParam:
		return internalIn(t.Constraint(), seen)
	}
	return ""
}
