package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// ABI 1's limits on what tools/list may describe.
const (
	MaxTools             = 64
	MaxToolNameLen       = 64
	MaxDescriptionRunes  = 1024
	MaxSchemaBytes       = 64 << 10
	MaxAllToolsBytes     = 256 << 10
	MaxToolsListPages    = 16
	maxArgumentsErrorLen = 512
)

// ToolDef is one tool of a Package: its name, description, schemas and the function that answers
// tools/call. Make it with Tool; a ToolDef whose types could not be described carries the error,
// which Package.Validate reports.
type ToolDef struct {
	name, description string
	input, output     json.RawMessage
	required          []string
	call              func(ctx context.Context, args json.RawMessage) *Result
	err               error
}

// Name returns the tool's name.
func (t ToolDef) Name() string { return t.name }

// Description returns the tool's description.
func (t ToolDef) Description() string { return t.description }

// InputSchema returns the JSON Schema of the tool's arguments, a top-level "type":"object".
func (t ToolDef) InputSchema() json.RawMessage { return t.input }

// OutputSchema returns the JSON Schema of the tool's structuredContent, or nil when the tool has
// none.
func (t ToolDef) OutputSchema() json.RawMessage { return t.output }

// Validator is implemented by input types that check their own values after decoding; a non-nil
// error becomes an isError result naming the problem, and the tool function is not called.
type Validator interface {
	Validate() error
}

var resultType = reflect.TypeFor[*Result]()

// Tool declares a tool answered by fn. The arguments of tools/call are decoded into In, which must
// be a struct (or a pointer to one, or a map with string keys) so that its schema is a top-level
// JSON object. Decoding refuses fields the schema does not name and requires the fields it lists as
// required (in the invopop/jsonschema convention, fields without omitempty); then In's Validate
// method, when it has one, runs. Any failure there is an isError result, so the model can correct
// its call.
//
// What fn returns decides the result:
//   - Out *Result: the result as given (no outputSchema); nil means an empty result.
//   - Out string: one text block (no outputSchema).
//   - Out whose schema is a JSON object (a struct, a map): structuredContent holding Out, a text
//     block with the same JSON, and an outputSchema derived from Out.
//   - any other Out: a text block with Out as JSON (no outputSchema).
//   - a non-nil error: an isError result whose text is the error's message (a *ToolError adds its
//     extra content blocks).
//
// A panic in fn is recovered into an isError result and logged to stderr with its stack, so one
// bad input does not look like a crashed module to the model.
func Tool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) ToolDef {
	t := ToolDef{name: name, description: description}
	in, err := reflectSchema(reflect.TypeFor[In]())
	if err != nil {
		t.err = fmt.Errorf("sdk: tool %q: input: %w", name, err)
		return t
	}
	if in.Type != "object" {
		t.err = fmt.Errorf("sdk: tool %q: %w: input type %v has schema type %q, not \"object\"", name, ErrInvalidTool, reflect.TypeFor[In](), in.Type)
		return t
	}
	t.required = in.Required
	if t.input, err = marshalSchema(in); err != nil {
		t.err = fmt.Errorf("sdk: tool %q: input: %w", name, err)
		return t
	}
	outType := reflect.TypeFor[Out]()
	var render func(Out) (*Result, error)
	switch {
	case outType == resultType:
		render = func(o Out) (*Result, error) {
			r := any(o).(*Result)
			if r == nil {
				r = &Result{}
			}
			return r, nil
		}
	case outType.Kind() == reflect.String:
		render = func(o Out) (*Result, error) { return TextResult(reflect.ValueOf(o).String()), nil }
	default:
		out, err := reflectSchema(outType)
		if err != nil {
			t.err = fmt.Errorf("sdk: tool %q: output: %w", name, err)
			return t
		}
		if out.Type == "object" {
			if t.output, err = marshalSchema(out); err != nil {
				t.err = fmt.Errorf("sdk: tool %q: output: %w", name, err)
				return t
			}
			render = func(o Out) (*Result, error) { return StructuredResult(o) }
		} else {
			render = func(o Out) (*Result, error) {
				b, err := json.Marshal(o)
				if err != nil {
					return nil, err
				}
				return TextResult(string(b)), nil
			}
		}
	}
	t.call = func(ctx context.Context, args json.RawMessage) *Result {
		var in In
		if err := decodeArguments(args, &in, t.required); err != nil {
			return ErrorResult("invalid arguments for tool %s: %s", name, clip(err.Error(), maxArgumentsErrorLen))
		}
		if v, ok := any(in).(Validator); ok {
			if err := v.Validate(); err != nil {
				return ErrorResult("invalid arguments for tool %s: %s", name, err.Error())
			}
		} else if v, ok := any(&in).(Validator); ok {
			if err := v.Validate(); err != nil {
				return ErrorResult("invalid arguments for tool %s: %s", name, err.Error())
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return errorResult(err)
		}
		r, err := render(out)
		if err != nil {
			return ErrorResult("tool %s: cannot encode its output: %s", name, err.Error())
		}
		return r
	}
	return t
}

// validate checks the tool against ABI 1's table.
func (t ToolDef) validate() error {
	if t.err != nil {
		return t.err
	}
	if t.call == nil {
		return fmt.Errorf("sdk: tool %q: %w: not made with sdk.Tool", t.name, ErrInvalidTool)
	}
	if err := checkToolName(t.name); err != nil {
		return fmt.Errorf("sdk: tool %q: %w: %s", t.name, ErrInvalidTool, err)
	}
	if !utf8.ValidString(t.description) {
		return fmt.Errorf("sdk: tool %q: %w: description is not UTF-8", t.name, ErrInvalidTool)
	}
	if n := utf8.RuneCountInString(t.description); n > MaxDescriptionRunes {
		return fmt.Errorf("sdk: tool %q: %w: description has %d characters, over %d", t.name, ErrInvalidTool, n, MaxDescriptionRunes)
	}
	if n := len(t.input); n > MaxSchemaBytes {
		return fmt.Errorf("sdk: tool %q: %w: inputSchema is %d bytes, over %d", t.name, ErrInvalidTool, n, MaxSchemaBytes)
	}
	if n := len(t.output); n > MaxSchemaBytes {
		return fmt.Errorf("sdk: tool %q: %w: outputSchema is %d bytes, over %d", t.name, ErrInvalidTool, n, MaxSchemaBytes)
	}
	return nil
}

func checkToolName(name string) error {
	if len(name) == 0 || len(name) > MaxToolNameLen {
		return fmt.Errorf("name must be 1 to %d characters, has %d", MaxToolNameLen, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("name has %q at byte %d; only a-z, 0-9, _ and - are allowed", c, i)
		}
	}
	return nil
}

func reflectSchema(t reflect.Type) (s *jsonschema.Schema, err error) {
	// invopop/jsonschema panics on some types (channels, funcs); report those as errors instead.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("%w: cannot describe %v: %v", ErrInvalidTool, t, r)
		}
	}()
	r := jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	return r.ReflectFromType(t), nil
}

func marshalSchema(s *jsonschema.Schema) (json.RawMessage, error) {
	// The host checks the schema, not its dialect URI, and every byte counts against 64 KiB.
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrInvalidTool, err)
	}
	return b, nil
}

// decodeArguments decodes the arguments object (absent or null reads as {}) into v, refusing
// unknown fields and missing required ones.
func decodeArguments(args json.RawMessage, v any, required []string) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("arguments must be a JSON object")
	}
	if len(required) > 0 {
		var present map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &present); err != nil {
			return err
		}
		for _, k := range required {
			if _, ok := present[k]; !ok {
				return fmt.Errorf("missing required argument %q", k)
			}
		}
	}
	return strictUnmarshal(trimmed, v)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
