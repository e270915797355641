package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi/wave"
)

const (
	calcWasm  = "../../component/testdata/runtime/calc.wasm"
	hostWasm  = "../../component/testdata/runtime/host.wasm"
	helloComp = "../../component/testdata/hello.wasm" // a C wasi:cli/run command component
	fibWasm   = "../../engine/testdata/fib.wasm"
	trapsWasm = "../../engine/testdata/traps.wasm"
)

// TestInvokeComponent calls calc.wasm's exports (see calc.wat) with WAVE arguments covering
// every kind of WIT value and checks the WAVE printed back.
func TestInvokeComponent(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"add(1, 2)", "3"},
		{"add(4294967295, 2)", "1"},
		{"docs:calc/api@0.1.0#add(40, 2)", "42"},
		{"docs:calc/api#add(5, 6)", "11"}, // the version is optional when only one is exported
		{`concat("héllo, ", "wörld")`, `"héllo, wörld"`},
		{`concat16("日本", "語😀")`, `"日本語😀"`},
		{`echo-latin1("café")`, `"café"`},
		{`echo("tab\there \"quoted\"")`, `"tab\there \"quoted\""`},
		{"sum([1, 2, 3, 4294967295])", "4294967301"},
		{"sum([])", "0"},
		{"range(4)", "[0, 1, 2, 3]"},
		{"swap({x: -1, y: 7})", "{x: 7, y: -1}"},
		{"inc-opt(some(41))", "some(42)"},
		{"inc-opt(41)", "some(42)"}, // the bare payload of an option
		{"inc-opt(none)", "none"},
		{"inc-opt()", "none"}, // a trailing option argument may be left out
		{"id-result(ok(9))", "ok(9)"},
		{`id-result(err("bad"))`, `err("bad")`},
		{"id-shape(circle(1.5))", "circle(1.5)"},
		{"id-shape(rect((2, -3)))", "rect((2, -3))"},
		{"id-shape(dot)", "dot"},
		{"id-color(blue)", "blue"},
		{"id-perms({read, exec})", "{read, exec}"},
		{"id-perms({})", "{}"},
		{`id-char('😀')`, `'😀'`},
		{"id-s8(-128)", "-128"},
		{"id-bool(true)", "true"},
		{"id-s64(-9223372036854775808)", "-9223372036854775808"},
		{"id-f64(-0.25)", "-0.25"},
		{"id-f64(inf)", "inf"},
		{"many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)", "153"},
		{"id-wide((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17))", "(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)"},
		{`count-strings(["a", "b", "c"])`, "3"},
		{"  add( 1 , 2 , )  ", "3"}, // whitespace and a trailing comma
		{"spin(10)", ""},            // no results: nothing printed
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			code, out, errs := runCLI(t, "run", "--invoke", tt.expr, calcWasm)
			if code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, errs)
			}
			want := ""
			if tt.want != "" {
				want = tt.want + "\n"
			}
			if out != want || errs != "" {
				t.Errorf("stdout %q, stderr %q; want stdout %q", out, errs, want)
			}
		})
	}
}

// TestInvokeDigitWord calls an export whose second word starts with a digit, which the component
// model's label grammar allows (run-1, add-10).
func TestInvokeDigitWord(t *testing.T) {
	code, out, errs := runCLI(t, "run", "--invoke", "run-1(41)", "../../component/testdata/runtime/empty-module.wasm")
	if code != 0 || out != "142\n" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 142", code, out, errs)
	}
}

// TestInvokeCore calls core module exports, their i32/i64/f32/f64 read and printed as WAVE
// s32/s64/f32/f64.
func TestInvokeCore(t *testing.T) {
	tests := []struct{ file, expr, want string }{
		{fibWasm, "fib(20)", "6765"},
		{fibWasm, "sumsq(10)", "285"},
		{fibWasm, " fib( 1 ) ", "1"},
		{trapsWasm, "grow(1)", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			code, out, errs := runCLI(t, "run", "--invoke", tt.expr, tt.file)
			if code != 0 || out != tt.want+"\n" || errs != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errs, tt.want+"\n")
			}
		})
	}
	// A core export named outside WAVE's kebab-case: a command's _start, run with WASI preview 1
	// provided as for a plain run (the embedded example; it ends with proc_exit(0)).
	code, out, errs := runCLI(t, "run", "--invoke", "_start()")
	if code != 0 || !strings.Contains(out, "fib(20) = 6765") {
		t.Errorf("_start(): exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestInvokeErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of the one error line
	}{
		{"unknown export", []string{"--invoke", "nope(1)", calcWasm}, exitUsage,
			[]string{`no func export named "nope"`, "exported functions: add, docs:calc/api@0.1.0#add, concat"}},
		{"unknown interface version", []string{"--invoke", "docs:calc/api@0.2.0#add(1, 2)", calcWasm}, exitUsage,
			[]string{`no instance export named "docs:calc/api@0.2.0"`}},
		{"bad argument with position", []string{"--invoke", "add(1, x)", calcWasm}, exitUsage,
			[]string{"wave: 1:8: expected u32 integer, found 'x'", "add: func(a: u32, b: u32) -> u32"}},
		{"wrong type", []string{"--invoke", `add(1, "two")`, calcWasm}, exitUsage,
			[]string{"wave: 1:8: expected u32 integer"}},
		{"too few arguments", []string{"--invoke", "add(1)", calcWasm}, exitUsage,
			[]string{"missing argument 2 of type u32: add takes 2"}},
		{"too many arguments", []string{"--invoke", "add(1, 2, 3)", calcWasm}, exitUsage,
			[]string{"wave: 1:11: too many arguments: add takes 2"}},
		{"syntax", []string{"--invoke", "add(1 2)", calcWasm}, exitUsage,
			[]string{"wave: 1:7: expected ',' or ')' in argument list, found '2'"}},
		{"unterminated", []string{"--invoke", `concat("a", "b"`, calcWasm}, exitUsage,
			[]string{"found end of input"}},
		{"out of range", []string{"--invoke", "add(-1, 2)", calcWasm}, exitUsage,
			[]string{"wave: 1:5:"}},
		{"unknown enum case", []string{"--invoke", "id-color(purple)", calcWasm}, exitUsage,
			[]string{"wave: 1:10:", "purple"}},
		{"trap", []string{"--invoke", "boom()", calcWasm}, exitTrap,
			[]string{"calc.wasm: unreachable"}},
		{"canonical ABI trap", []string{"--invoke", "bad-char()", calcWasm}, exitTrap,
			[]string{"canonical ABI violation in function bad-char", "invalid char", "bad-char"}},
		{"bad discriminant", []string{"--invoke", "bad-color()", calcWasm}, exitTrap,
			[]string{"canonical ABI violation", "discriminant out of range"}},
		{"fuel exhausted", []string{"--fuel", "1000", "--invoke", "spin(100000000)", calcWasm}, exitTrap,
			[]string{"calc.wasm: fuel exhausted"}},
		{"deadline", []string{"--timeout", "20ms", "--fuel", "9000000000000000000", "--invoke", "spin(4000000000)", calcWasm}, exitTrap,
			[]string{"deadline exceeded"}},
		{"missing import", []string{"--invoke", "run(1)", hostWasm}, exitError,
			[]string{"missing import: docs:host/api@0.2.1#", "provides WASI 0.2 and wasi:http to components, no other host interfaces"}},
		{"component, no invoke", []string{calcWasm}, exitUsage,
			[]string{"component does not export wasi:cli/run", "--invoke"}},
		{"core unknown export", []string{"--invoke", "fibo(3)", fibWasm}, exitUsage,
			[]string{`no exported function "fibo" (exported functions: fib, sumsq)`}},
		{"core too many", []string{"--invoke", "fib(1, 2)", fibWasm}, exitUsage,
			[]string{"wave: 1:8: too many arguments: fib takes 1", "(fib: func(p0: s32) -> s32)"}},
		{"long expression clipped", []string{"--invoke", "fib(" + strings.Repeat("1", 10000) + ")", fibWasm}, exitUsage,
			[]string{`--invoke "fib(1111111111111111111111111111111111111111111111111111111111111111111111111111"… (10005 bytes): wave: 1:5:`}},
		{"core out of range", []string{"--invoke", "fib(4294967296)", fibWasm}, exitUsage,
			[]string{"out of range for s32"}},
		{"core no parens", []string{"--invoke", "fib", fibWasm}, exitUsage,
			[]string{"wave: 1:4:"}},
		{"core trap, snake_case name", []string{"--invoke", "div_zero()", trapsWasm}, exitTrap,
			[]string{"integer divide by zero"}},
		{"core fuel", []string{"--fuel", "1000", "--invoke", "fib(30)", fibWasm}, exitTrap,
			[]string{"fib.wasm: fuel exhausted"}},
		{"not wasm", []string{"--invoke", "f()", "invoke_test.go"}, exitError,
			[]string{"not a WebAssembly binary"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, append([]string{"run"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, errs)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.HasPrefix(errs, "error: ") || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") {
				t.Errorf("stderr %q: want one error: line", errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// TestInvokeStats checks that --stats reports the fuel a component call used: more for a
// longer loop, and the same for the same call.
func TestInvokeStats(t *testing.T) {
	fuelOf := func(expr, file string) uint64 {
		t.Helper()
		code, _, errs := runCLI(t, "run", "--stats", "--invoke", expr, file)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", expr, code, errs)
		}
		var st runStats
		if err := json.Unmarshal([]byte(strings.TrimSpace(errs)), &st); err != nil {
			t.Fatalf("%s: stats %q: %v", expr, errs, err)
		}
		if (file == calcWasm) != (st.PeakMemoryBytes > 0) || st.ExitCode != 0 { // fib.wasm has no memory
			t.Errorf("%s: stats %+v", expr, st)
		}
		return st.FuelConsumed
	}
	small, big, again := fuelOf("spin(10)", calcWasm), fuelOf("spin(1000)", calcWasm), fuelOf("spin(10)", calcWasm)
	if small == 0 || big <= small || again != small {
		t.Errorf("fuel spin(10) %d, spin(1000) %d, spin(10) again %d", small, big, again)
	}
	if f20, f25 := fuelOf("fib(20)", fibWasm), fuelOf("fib(25)", fibWasm); f20 == 0 || f25 <= f20 {
		t.Errorf("fuel fib(20) %d, fib(25) %d", f20, f25)
	}
	code, _, errs := runCLI(t, "run", "--stats", "--fuel", "1000", "--invoke", "spin(100000000)", calcWasm)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	var st runStats
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil || code != exitTrap || st.ExitCode != exitTrap || st.FuelConsumed < 1000 {
		t.Errorf("exhausted: exit %d, stats %q (%v)", code, errs, err)
	}
}

// TestParseCoreCall checks that errors in a call of a core export, whose name WAVE's call syntax
// would refuse, still point at the right place in the expression.
func TestParseCoreCall(t *testing.T) {
	tests := []struct {
		expr, name  string
		args        int
		line, col   int // of the error; 0 when none
		errContains string
	}{
		{"fib(1)", "fib", 1, 0, 0, ""},
		{"_start()", "_start", 0, 0, 0, ""},
		{"sum_sq(1, 2,)", "sum_sq", 2, 0, 0, ""},
		{"Ünïcode_f(1 2)", "", 0, 1, 13, "expected ',' or ')'"},
		{"ascii_f(1 2)", "", 0, 1, 11, "expected ',' or ')'"},
		{"f(1,\n  x y)", "", 0, 2, 5, "expected ',' or ')'"},
		{"f", "", 0, 1, 2, "expected '('"},
		{"", "", 0, 1, 1, "expected a function name"},
		{"f(1))", "", 0, 1, 5, "expected end of input"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			name, call, err := parseCoreCall(tt.expr)
			if tt.line == 0 {
				if err != nil || name != tt.name || call.Func != tt.name || len(call.Args) != tt.args {
					t.Fatalf("got %q, %+v, %v; want %q with %d args", name, call, err, tt.name, tt.args)
				}
				return
			}
			var we *wave.Error
			if !errors.As(err, &we) {
				t.Fatalf("error %v, want a *wave.Error", err)
			}
			if we.Line != tt.line || we.Column != tt.col || !strings.Contains(we.Msg, tt.errContains) {
				t.Errorf("error %v (line %d col %d), want %d:%d %q", err, we.Line, we.Column, tt.line, tt.col, tt.errContains)
			}
		})
	}
}

// TestInvokeCoreUnrepresentable checks that a core export whose signature has no WAVE form is
// refused by name rather than called with made-up values.
func TestInvokeCoreUnrepresentable(t *testing.T) {
	// (module (func (export "v") (param v128)))
	wasm := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 5, 1, 0x60, 1, 0x7b, 0, // type: (func (param v128))
		3, 2, 1, 0, // func 0: type 0
		7, 5, 1, 1, 'v', 0, 0, // export "v" func 0
		10, 4, 1, 2, 0, 0x0b} // code: empty body
	path := filepath.Join(t.TempDir(), "v128.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "run", "--invoke", "v(1)", path)
	if code != exitUsage || out != "" || !strings.Contains(errs, "parameter 1 of v is a v128, which has no WAVE form") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
