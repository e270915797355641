// Package wave reads and writes the WebAssembly Value Encoding (WAVE), the text form of component
// model values that `wasmtime run --invoke` and wasm-tools use, over package abi's types and
// values. It is what `kobako run --invoke 'f(1, "x")'` parses its arguments with and prints
// results in.
//
// The syntax, following crates/wasm-wave of bytecodealliance/wasm-tools:
//
//	bool          true, false
//	integers      123, -9
//	floats        3.14, 6.022e+23, nan, inf, -inf (JSON number syntax)
//	char          'x', '☃', '\'', '\u{1F600}'
//	string        "abc\t123", and """-delimited multi-line strings
//	tuple         ("abc", 123)
//	list          [1, 2, 3]
//	record        {field-a: 1, field-b: "two"}; option fields holding none may be left out, {:}
//	              when all are
//	variant       days(30), forever
//	enum          south
//	option        some(1), none, or the bare payload 1 (unless it is an option or result)
//	result        ok(1), err("oops"), ok, err, or the bare ok payload (likewise)
//	flags         {read, write}, {}
//
// Labels are kebab-case; a variant or enum case spelled like a keyword (true, false, inf, nan,
// some, none, ok, err) is written with a leading '%'. Whitespace and // comments may separate
// tokens, and trailing commas are allowed.
//
// Own and borrow handles have no WAVE form (the format leaves resources undecided): they print
// as own(REP) and borrow(REP) for reading, and parsing refuses them, since a handle cannot be
// made from text.
//
// Every error is an *Error naming the line, column and byte offset, what was expected and what
// was found, and matching ErrSyntax, ErrValue or ErrUnsupported:
//
//	wave: 1:7: expected ',' or ')' in argument list, found 'x'
//
// Parsing is typed and recursive only along the type, whose depth abi bounds; untyped scanning
// of call arguments (ParseCall) keeps its own bracket stack. Input of any size and shape gives a
// value or an error, never a panic.
package wave
