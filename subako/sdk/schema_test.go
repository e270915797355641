package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	"pgregory.net/rapid"
)

// invopopSchema is the reference: what the SDK derived with invopop/jsonschema before it had its
// own reflector. ok is false when invopop cannot describe t (it panics) or encode the result.
func invopopSchema(t reflect.Type) (b []byte, ok bool) {
	defer func() {
		if recover() != nil {
			b, ok = nil, false
		}
	}()
	r := jsonschema.Reflector{DoNotReference: true, Anonymous: true}
	s := r.ReflectFromType(t)
	s.Version = ""
	b, err := json.Marshal(s)
	return b, err == nil
}

type Embedded struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty" jsonschema:"description=from the Embedded struct"`
}

type EmbeddedPtr struct {
	Z []bool `json:"z"`
}

var (
	fieldTypes = []reflect.Type{
		reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[uint16](),
		reflect.TypeFor[float64](), reflect.TypeFor[float32](), reflect.TypeFor[bool](), reflect.TypeFor[[]string](),
		reflect.TypeFor[[]byte](), reflect.TypeFor[[3]int](), reflect.TypeFor[map[string]int](),
		reflect.TypeFor[map[int]string](), reflect.TypeFor[map[uint]bool](), reflect.TypeFor[map[string]any](),
		reflect.TypeFor[any](), reflect.TypeFor[*string](), reflect.TypeFor[time.Time](), reflect.TypeFor[url.URL](),
		reflect.TypeFor[*url.URL](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[[]float32](),
		reflect.TypeFor[[][]int](), reflect.TypeFor[Embedded](), reflect.TypeFor[*EmbeddedPtr](),
		reflect.TypeFor[chan int](), reflect.TypeFor[complex64](),
	}
	jsonNames   = []string{"", "", "a", "b", "c", "-", "d-e", "<html>"}
	jsonOptions = []string{"omitempty", "omitzero", "string", "inline"}
	schemaTags  = []string{
		"required", "nullable", "-", "description=d", "title=t", "anchor=an", "type=string", "type=integer", "type=array",
		"minimum=1", "maximum=1.5", "exclusiveMinimum=0", "exclusiveMaximum=9", "multipleOf=2", "minimum=+1", "maximum=x",
		"enum=a", "enum=1", "enum=1e3", "default=3", "default=true", "default=false", "example=x", "example=2",
		"minLength=1", "maxLength=10", "minLength=-1", `pattern=^a\,b$`, "pattern=a=b", "format=email",
		"readOnly=true", "writeOnly=1", "minItems=1", "maxItems=2", "uniqueItems=true", "oneof_required=g1",
		"oneof_required=g2", "anyof_required=g3", "oneof_type=string;integer", "anyof_type=number;null",
		"oneof_ref=#/a;#/b", "anyof_ref=#/c", "enum=1=2",
	}
	extras = []string{"a=b", "a=c", "minimum=3", "flag=true", "flag=false", "n=1"}
)

// genType draws a struct type: fields of the types above (and nested structs), with random json,
// jsonschema, jsonschema_description and jsonschema_extras tags, some of them Embedded.
func genType(t *rapid.T, depth int) reflect.Type {
	n := rapid.IntRange(0, 5).Draw(t, "fields")
	var fields []reflect.StructField
	embeddedOnce := map[reflect.Type]bool{}
	for i := range n {
		var ft reflect.Type
		if depth < 2 && rapid.IntRange(0, 5).Draw(t, "nest") == 0 {
			ft = genType(t, depth+1)
			switch rapid.IntRange(0, 2).Draw(t, "wrap") {
			case 1:
				ft = reflect.PointerTo(ft)
			case 2:
				ft = reflect.SliceOf(ft)
			}
		} else {
			ft = rapid.SampledFrom(fieldTypes).Draw(t, "type")
		}
		f := reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: ft}
		if (ft == reflect.TypeFor[Embedded]() || ft == reflect.TypeFor[*EmbeddedPtr]()) && !embeddedOnce[ft] && rapid.Bool().Draw(t, "anonymous") {
			embeddedOnce[ft] = true
			f.Name, f.Anonymous = ft.String()[strings.LastIndex(ft.String(), ".")+1:], true
		}
		var tag []string
		if rapid.Bool().Draw(t, "json") {
			j := rapid.SampledFrom(jsonNames).Draw(t, "name")
			for _, o := range rapid.SliceOfN(rapid.SampledFrom(jsonOptions), 0, 2).Draw(t, "options") {
				j += "," + o
			}
			tag = append(tag, fmt.Sprintf("json:%q", j))
		}
		if rapid.Bool().Draw(t, "jsonschema") {
			tag = append(tag, fmt.Sprintf("jsonschema:%q", strings.Join(rapid.SliceOfN(rapid.SampledFrom(schemaTags), 1, 4).Draw(t, "schema"), ",")))
		}
		if rapid.IntRange(0, 4).Draw(t, "desc") == 0 {
			tag = append(tag, `jsonschema_description:"long, described"`)
		}
		if rapid.IntRange(0, 4).Draw(t, "extras") == 0 {
			tag = append(tag, fmt.Sprintf("jsonschema_extras:%q", strings.Join(rapid.SliceOfN(rapid.SampledFrom(extras), 1, 3).Draw(t, "extra"), ",")))
		}
		f.Tag = reflect.StructTag(strings.Join(tag, " "))
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// TestPropSchemaMatchesInvopop checks the SDK's reflector against invopop/jsonschema on random
// struct types: the same bytes when invopop describes the type, an ErrInvalidTool error when it
// cannot.
func TestPropSchemaMatchesInvopop(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := genType(t, 0)
		if rapid.Bool().Draw(t, "map root") {
			typ = reflect.MapOf(reflect.TypeFor[string](), typ)
		}
		want, ok := invopopSchema(typ)
		got, err := marshalSchema(typ)
		switch {
		case !ok && err == nil:
			t.Fatalf("%v: invopop fails, the SDK gives %s", typ, got)
		case ok && err != nil:
			t.Fatalf("%v: the SDK fails (%v), invopop gives %s", typ, err, want)
		case ok && string(got) != string(want):
			t.Fatalf("%v:\n got %s\nwant %s", typ, got, want)
		}
		if err == nil {
			// The required list a tools/call checks is the schema's.
			var s struct {
				Required []string `json:"required"`
			}
			if json.Unmarshal(got, &s) != nil {
				t.Fatalf("%v: schema %s does not decode", typ, got)
			}
			if req := requiredOf(typ, nil); !reflect.DeepEqual(req, s.Required) {
				t.Fatalf("%v: requiredOf %q, schema requires %q", typ, req, s.Required)
			}
		}
	})
}

type recursive struct {
	Next *recursive `json:"next,omitempty"`
}

type recursiveList []recursiveList

type hooked struct{}

func (hooked) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }

func TestBuildSchema_Errors(t *testing.T) {
	tests := []struct {
		name  string
		typ   reflect.Type
		errIn string
	}{
		{"recursive struct", reflect.TypeFor[recursive](), "contains itself"},
		{"recursive slice", reflect.TypeFor[struct{ L recursiveList }](), "contains itself"},
		{"invopop hook", reflect.TypeFor[struct{ H hooked }](), "JSONSchema method"},
		{"channel", reflect.TypeFor[struct{ C chan int }](), "JSON has no chan"},
		{"function", reflect.TypeFor[map[string]func()](), "JSON has no func"},
		{"format on no items", reflect.TypeFor[struct {
			S string `jsonschema:"type=array,format=x"`
		}](), "no items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := marshalSchema(tt.typ)
			if err == nil || !errors.Is(err, ErrInvalidTool) || !strings.Contains(err.Error(), tt.errIn) {
				t.Fatalf("err = %v, want ErrInvalidTool containing %q", err, tt.errIn)
			}
		})
	}
}
