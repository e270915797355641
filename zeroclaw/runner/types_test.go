package runner

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// fill sets every field of the struct v points to, recursively, to a non-zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(1)
	default:
		panic("fill: " + v.Type().String())
	}
}

func filled[T any]() T {
	var x T
	fill(reflect.ValueOf(&x).Elem())
	return x
}

// TestConversionsCoverGenerated: each type the runtime keeps beside a generated one has the
// generated type's fields (the same names up to case, in order), and its conversions copy every
// field: a field the WIT gains fails here until the runtime's type and conversion have it.
func TestConversionsCoverGenerated(t *testing.T) {
	tests := []struct {
		name      string
		own, wit  reflect.Type
		converted []any // the conversions' results from fully filled inputs
	}{
		{"plugin-event", reflect.TypeFor[PluginEvent](), reflect.TypeFor[bindings.PluginEvent](),
			[]any{eventOf(filled[bindings.PluginEvent]())}},
		{"tool-result", reflect.TypeFor[ToolResult](), reflect.TypeFor[bindings.ToolResult](),
			[]any{toolResultOf(filled[bindings.ToolResult]())}},
		{"host-inbound-message", reflect.TypeFor[HostInboundMessage](), reflect.TypeFor[bindings.HostInboundMessage](),
			func() []any { m := filled[HostInboundMessage](); return []any{*m.wit()} }()},
		{"inbound-message", reflect.TypeFor[InboundMessage](), reflect.TypeFor[bindings.InboundMessage](),
			func() []any {
				w := filled[bindings.InboundMessage]()
				o := filled[InboundMessage]()
				return []any{*inboundOf(&w), o.wit()}
			}()},
		{"send-message", reflect.TypeFor[SendMessage](), reflect.TypeFor[bindings.SendMessage](),
			func() []any { m := filled[SendMessage](); return []any{m.wit()} }()},
		{"memory-category", reflect.TypeFor[MemoryCategory](), reflect.TypeFor[bindings.MemoryCategory](),
			[]any{filled[MemoryCategory]().wit()}},
		{"memory-entry", reflect.TypeFor[MemoryEntry](), reflect.TypeFor[bindings.MemoryEntry](),
			func() []any {
				w := filled[bindings.MemoryEntry]()
				return []any{entryOf(&w), entriesOf([]bindings.MemoryEntry{w})[0]}
			}()},
		{"export-filter", reflect.TypeFor[ExportFilter](), reflect.TypeFor[bindings.ExportFilter](),
			func() []any { f := filled[ExportFilter](); return []any{f.wit()} }()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.own.NumField() != tc.wit.NumField() {
				t.Fatalf("%s has %d fields, %s %d", tc.own, tc.own.NumField(), tc.wit, tc.wit.NumField())
			}
			for i := range tc.own.NumField() {
				o, w := tc.own.Field(i), tc.wit.Field(i)
				if !strings.EqualFold(o.Name, w.Name) {
					t.Errorf("field %d: %s.%s, %s.%s", i, tc.own, o.Name, tc.wit, w.Name)
				}
			}
			for _, c := range tc.converted {
				v := reflect.ValueOf(c)
				for i := range v.NumField() {
					if v.Field(i).IsZero() {
						t.Errorf("%T.%s is not copied", c, v.Type().Field(i).Name)
					}
				}
			}
		})
	}
}

// TestHostInboundMessageType: the written-out WIT type fits the generated record (which the
// bindings' tests check against the WIT) and the runtime's own, as the CLI shell uses it.
func TestHostInboundMessageType(t *testing.T) {
	for _, gt := range []reflect.Type{reflect.TypeFor[bindings.HostInboundMessage](), reflect.TypeFor[HostInboundMessage]()} {
		if _, err := abi.NewCodec(gt, HostInboundMessageType()); err != nil {
			t.Errorf("%s: %v", gt, err)
		}
	}
}

func TestLabels(t *testing.T) {
	tests := []struct{ got, want string }{
		{LogWarn.String(), "warn"},
		{PluginAction(25).String(), "list-action"},
		{PluginAction(37).String(), "memory-audit"},
		{OutcomeFailure.String(), "failure"},
		{SecretNotFound.String(), "not-found"},
		{ConfigUnavailable.String(), "unavailable"},
		{fmt.Sprint((ChannelSelfHandle | ChannelSupportsFreeFormAsk).Labels()), "[self-handle supports-free-form-ask]"},
		{fmt.Sprint(ChannelMultiMessageDelayMS.Labels()), "[multi-message-delay-ms]"},
		{fmt.Sprint(MemoryStoreWithMetadata.Labels()), "[store-with-metadata]"},
		{fmt.Sprint(MemoryEnsureAgentUUID.Labels()), "[ensure-agent-uuid]"},
		{fmt.Sprint(ChannelCapabilities(0).Labels()), "[]"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if n, m := len(ChannelCapabilities(0).WITLabels()), len(MemoryCapabilities(0).WITLabels()); n != 22 || m != 11 {
		t.Fatalf("label counts %d %d", n, m)
	}
}
