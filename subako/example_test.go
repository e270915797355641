package subako_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/subako"
)

// examplePackage writes a package directory around one of the test fixtures.
func examplePackage(fixture string) string {
	dir, _ := os.MkdirTemp("", "subako-example-")
	wasm, err := os.ReadFile(filepath.Join("testdata", fixture+".wasm"))
	if err != nil {
		panic(err)
	}
	os.WriteFile(filepath.Join(dir, subako.ManifestFile), []byte(`{"abi":1,"name":"hello","description":"Says hello."}`), 0o644)
	os.WriteFile(filepath.Join(dir, subako.ModuleFile), wasm, 0o644)
	return dir
}

// Load a package, discover its tools as an upload does, then call one.
func Example() {
	ctx := context.Background()
	dir := examplePackage("tiny")
	defer os.RemoveAll(dir)

	rt, err := subako.New(ctx, subako.Config{})
	if err != nil {
		panic(err)
	}
	defer rt.Close(ctx)
	pkg, err := rt.Load(ctx, dir) // validates and compiles module.wasm
	if err != nil {
		panic(err)
	}
	defer pkg.Close()

	tools, err := pkg.Discover(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(pkg.Manifest.Name, "has tool", tools[0].Name)

	// Each call runs in a fresh instance; the policy says which hosts subako_http may reach.
	policy, _ := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"}})
	res, err := pkg.Call(ctx, "greet", json.RawMessage(`{"name":"Ada"}`), subako.CallOptions{Network: policy})
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	// Output:
	// hello has tool greet
	// {"content":[{"type":"text","text":"hello from wat"}]}
}

// A module that breaks a rule of ABI 1 crashes; the error says which rule, with its stderr.
func ExamplePackage_Call_crash() {
	ctx := context.Background()
	dir := examplePackage("rpc_error")
	defer os.RemoveAll(dir)
	rt, _ := subako.New(ctx, subako.Config{})
	defer rt.Close(ctx)
	pkg, err := rt.Load(ctx, dir)
	if err != nil {
		panic(err)
	}
	_, err = pkg.Call(ctx, "greet", nil, subako.CallOptions{})
	var crash *subako.CrashError
	if errors.As(err, &crash) {
		fmt.Println(crash.Rule == subako.RuleRPCError)
		fmt.Println(crash.Report())
	}
	// Output:
	// true
	// The function crashed: it answered with a JSON-RPC error (code -32603: boom).
	// Last stderr output:
	// rpc_error: giving up
}

// Validate runs the upload checks alone and names every problem.
func ExampleValidate() {
	wasm, _ := os.ReadFile("testdata/validate/foreign_import.wasm")
	fmt.Println(subako.Validate(wasm))
	// Output:
	// subako: validate: module does not meet ABI 1: import env.helper: module "env" is not provided (only wasi_snapshot_preview1 and subako_http are)
}
