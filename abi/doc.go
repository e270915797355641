// Package abi implements the component model's canonical ABI: how component-level values
// (strings, lists, records, variants, resources, …) are represented in a core WebAssembly
// instance's linear memory and core values, and how they are lifted out of it and lowered into it.
// It follows design/mvp/CanonicalABI.md of the WebAssembly/component-model repository for the
// synchronous component model (WASI 0.2); the async additions (stream, future, error-context,
// async lift and lower) are refused with ErrAsync rather than misread.
//
// The package uses only the standard library and knows nothing of any engine: it reads and
// writes guest memory through the small Memory interface, calls the guest's allocator through
// Realloc, and moves resource handles through HandleTable. SliceMemory and Handles are
// complete in-process implementations for tests and for hosts that need canonical bytes.
//
// # Types
//
// A Type describes a WIT value type. Primitives are package variables (Bool, U32, String, …);
// compound types come from constructors (ListOf, RecordOf, TupleOf, VariantOf, EnumOf,
// OptionOf, ResultOf, FlagsOf, OwnOf, BorrowOf) that validate their arguments — at least one
// field or case, distinct labels, 1 to 32 flags, a size below 2^28 bytes — and compute the
// type's size, alignment and flattened core types once. FuncOf builds a function type and its
// two core signatures, spilling to memory beyond 16 flat parameters or 1 flat result.
//
// A type's size, alignment and flattening come from Layout, the package's one definition of the
// canonical ABI's layout arithmetic. Layouts compose without types (RecordLayout, VariantLayout,
// FlagsLayout, Kind.Layout), so the component decoder bounds a type by the same arithmetic while
// it decodes, before any Type exists.
//
// # Values
//
// A Value is a dynamically typed value (BoolValue, StringValue, RecordValue, VariantValue, …).
// Values print (String, or Format with labels) and compare (Equal, with one NaN). A Codec maps Go
// types to WIT types — structs to records, slices to lists, Option and Result, integer types to
// enums and flags — checked once, converting through Value so that typed and dynamic calls run
// the same canonical ABI code.
//
// # Lifting and lowering
//
// A CallContext holds the canonical options of one call: memory, realloc, string encoding,
// post-return, the handle table and the borrow scope. Its methods lift and lower single values in
// memory form (Load, Store) and flat form (LiftFlat, LowerFlat). FuncType methods do whole
// signatures: CallExport for the host calling a guest export (canon lift), ServeImport for a
// guest calling a host import (canon lower), and the four steps they are made of.
//
// Everything read from the guest is checked before use: pointers and lengths against memory size
// with 64-bit arithmetic, alignment, length × element size, the string and list byte limits,
// discriminants, chars, UTF-8 and UTF-16 validity, and handles. Each failure is a *PathError
// naming where in the value it happened and matching one sentinel error:
//
//	lift param "req": record field "body": list element 3: char 0xd800 is a surrogate: invalid char
//
// Floats are NaN-canonicalised on lift and on lower (the specification's deterministic profile),
// so lowering is deterministic. Flags bits beyond the declared labels are ignored on lift, as the
// specification's unpack_flags_from_int does, and refused when a host value sets them.
package abi
