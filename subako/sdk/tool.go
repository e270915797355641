package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/kobako/kobako/subako/wire"
)

// ABI 1's limits on what tools/list may describe.
const (
	MaxTools             = wire.MaxTools
	MaxToolNameLen       = wire.MaxToolNameLen
	MaxDescriptionRunes  = wire.MaxToolDescChars
	MaxSchemaBytes       = wire.MaxSchemaBytes
	MaxAllToolsBytes     = wire.MaxToolsTotalBytes
	MaxToolsListPages    = wire.MaxToolsPages
	maxArgumentsErrorLen = 512
)

// ToolDef is one tool of a Package: its name, description, schemas and the function that answers
// tools/call. Make it with Tool; a ToolDef whose types could not be described carries the error,
// which Package.Validate reports.
//
// A ToolDef derives its schemas when they are first asked for (tools/list, server/discover,
// Validate, InputSchema), not when it is made: ABI 1 starts a fresh instance for every call, and a
// tools/call needs no schema.
type ToolDef struct {
	name, description string
	in, out           reflect.Type // out is nil when the tool has no outputSchema
	schemas           *toolSchemas
	required          func() []string
	call              func(ctx context.Context, args json.RawMessage) *Result
	err               error
}

// toolSchemas holds a tool's schemas once derived; copies of a ToolDef share it.
type toolSchemas struct {
	once          sync.Once
	input, output json.RawMessage
	err           error
}

// derived returns the tool's schemas, deriving them on first use.
func (t ToolDef) derived() *toolSchemas {
	if t.schemas == nil {
		return &toolSchemas{}
	}
	t.schemas.once.Do(func() {
		s := t.schemas
		if s.input, s.err = marshalSchema(t.in); s.err != nil {
			s.err = fmt.Errorf("sdk: tool %q: input: %w", t.name, s.err)
			return
		}
		if t.out != nil {
			if s.output, s.err = marshalSchema(t.out); s.err != nil {
				s.err = fmt.Errorf("sdk: tool %q: output: %w", t.name, s.err)
			}
		}
	})
	return t.schemas
}

// Name returns the tool's name.
func (t ToolDef) Name() string { return t.name }

// Description returns the tool's description.
func (t ToolDef) Description() string { return t.description }

// InputSchema returns the JSON Schema of the tool's arguments, a top-level "type":"object", or nil
// when it cannot be derived (Validate says why).
func (t ToolDef) InputSchema() json.RawMessage { return t.derived().input }

// OutputSchema returns the JSON Schema of the tool's structuredContent, or nil when the tool has
// none.
func (t ToolDef) OutputSchema() json.RawMessage { return t.derived().output }

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
// Schemas follow invopop/jsonschema's conventions (json and jsonschema struct tags; time.Time,
// url.URL and []byte as strings); types with invopop's hook methods (JSONSchema, JSONSchemaExtend
// and the like) and recursive types cannot be described, and Validate says so.
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
	t := ToolDef{name: name, description: description, in: reflect.TypeFor[In](), schemas: &toolSchemas{}}
	if !isObject(t.in) {
		t.err = fmt.Errorf("sdk: tool %q: %w: input type %v has a schema whose type is not \"object\"", name, ErrInvalidTool, t.in)
		return t
	}
	var render func(Out) (*Result, error)
	switch outType := reflect.TypeFor[Out](); {
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
	case isObject(outType):
		t.out = outType
		render = func(o Out) (*Result, error) { return StructuredResult(o) }
	default:
		render = func(o Out) (*Result, error) {
			b, err := json.Marshal(o)
			if err != nil {
				return nil, err
			}
			return TextResult(string(b)), nil
		}
	}
	t.required = sync.OnceValue(func() []string { return requiredOf(t.in, nil) })
	t.call = func(ctx context.Context, args json.RawMessage) *Result {
		var in In
		if err := decodeArguments(args, &in, t.required()); err != nil {
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
	return nil
}

// validateSchemas derives the tool's schemas and checks their sizes.
func (t ToolDef) validateSchemas() error {
	s := t.derived()
	if s.err != nil {
		return s.err
	}
	if n := len(s.input); n > MaxSchemaBytes {
		return fmt.Errorf("sdk: tool %q: %w: inputSchema is %d bytes, over %d", t.name, ErrInvalidTool, n, MaxSchemaBytes)
	}
	if n := len(s.output); n > MaxSchemaBytes {
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

// marshalSchema derives t's schema and encodes it. The host checks the schema, not its dialect URI,
// so none is written: every byte counts against 64 KiB.
func marshalSchema(t reflect.Type) (json.RawMessage, error) {
	s, err := buildSchema(t)
	if err != nil {
		return nil, err
	}
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
