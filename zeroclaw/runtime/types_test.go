package runtime

import (
	"fmt"
	"reflect"
	"testing"

	"go.bytecodealliance.org/wit"

	"github.com/kobako/kobako/abi"
)

// fromWIT converts a go.bytecodealliance.org/wit type into the abi type kobako lifts and lowers.
func fromWIT(t wit.Type) (abi.Type, error) {
	switch x := t.(type) {
	case wit.Bool:
		return abi.Bool, nil
	case wit.U8:
		return abi.U8, nil
	case wit.U32:
		return abi.U32, nil
	case wit.U64:
		return abi.U64, nil
	case wit.F64:
		return abi.F64, nil
	case wit.String:
		return abi.String, nil
	case *wit.TypeDef:
		return fromWITKind(x.Kind)
	}
	return nil, fmt.Errorf("unsupported WIT type %T", t)
}

func fromWITKind(k wit.TypeDefKind) (abi.Type, error) {
	switch x := k.(type) {
	case *wit.Record:
		var fs []abi.Field
		for _, f := range x.Fields {
			ft, err := fromWIT(f.Type)
			if err != nil {
				return nil, err
			}
			fs = append(fs, abi.Field{Name: f.Name, Type: ft})
		}
		return abi.RecordOf(fs...)
	case *wit.Enum:
		var ls []string
		for _, c := range x.Cases {
			ls = append(ls, c.Name)
		}
		return abi.EnumOf(ls...)
	case *wit.Flags:
		var ls []string
		for _, f := range x.Flags {
			ls = append(ls, f.Name)
		}
		return abi.FlagsOf(ls...)
	case *wit.Variant:
		var cs []abi.Case
		for _, c := range x.Cases {
			var p abi.Type
			if c.Type != nil {
				var err error
				if p, err = fromWIT(c.Type); err != nil {
					return nil, err
				}
			}
			cs = append(cs, abi.Case{Name: c.Name, Type: p})
		}
		return abi.VariantOf(cs...)
	case *wit.Option:
		e, err := fromWIT(x.Type)
		if err != nil {
			return nil, err
		}
		return abi.OptionOf(e)
	case *wit.List:
		e, err := fromWIT(x.Type)
		if err != nil {
			return nil, err
		}
		return abi.ListOf(e)
	case wit.Type:
		return fromWIT(x)
	}
	return nil, fmt.Errorf("unsupported WIT type definition %T", k)
}

// TestMirrorsMatchWIT checks every Go mirror against its WIT type in both packages of ../wit
// (the published v0 and the seed): field names, case names, labels and types must agree exactly.
func TestMirrorsMatchWIT(t *testing.T) {
	mirrors := []struct {
		iface, name string
		gt          reflect.Type
		seedOnly    bool
	}{
		{"logging", "log-level", reflect.TypeFor[LogLevel](), false},
		{"logging", "plugin-action", reflect.TypeFor[PluginAction](), false},
		{"logging", "plugin-outcome", reflect.TypeFor[PluginOutcome](), false},
		{"logging", "plugin-event", reflect.TypeFor[PluginEvent](), false},
		{"secrets", "secret-error", reflect.TypeFor[SecretError](), false},
		{"config", "config-error", reflect.TypeFor[ConfigError](), true},
		{"tool", "tool-result", reflect.TypeFor[ToolResult](), false},
		{"inbound", "host-inbound-message", reflect.TypeFor[HostInboundMessage](), false},
		{"channel", "media-attachment", reflect.TypeFor[MediaAttachment](), false},
		{"channel", "inbound-message", reflect.TypeFor[InboundMessage](), false},
		{"channel", "send-message", reflect.TypeFor[SendMessage](), false},
		{"channel", "approval-request", reflect.TypeFor[ApprovalRequest](), false},
		{"channel", "approval-response", reflect.TypeFor[ApprovalResponse](), false},
		{"channel", "channel-capabilities", reflect.TypeFor[ChannelCapabilities](), false},
		{"memory", "memory-category", reflect.TypeFor[MemoryCategory](), false},
		{"memory", "memory-entry", reflect.TypeFor[MemoryEntry](), false},
		{"memory", "export-filter", reflect.TypeFor[ExportFilter](), false},
		{"memory", "procedural-message", reflect.TypeFor[ProceduralMessage](), false},
		{"memory", "agent-filter", reflect.TypeFor[AgentFilter](), false},
		{"memory", "memory-capabilities", reflect.TypeFor[MemoryCapabilities](), false},
	}
	for _, dir := range []string{"wit/v0", "wit/seed"} {
		res, err := wit.LoadWIT(dir)
		if err != nil {
			t.Fatalf("load %s: %v", dir, err)
		}
		ifaces := map[string]*wit.Interface{}
		for _, p := range res.Packages {
			if p.Name.String() != "zeroclaw:plugin@0.1.0" {
				continue
			}
			p.Interfaces.All()(func(name string, i *wit.Interface) bool {
				ifaces[name] = i
				return true
			})
		}
		for _, m := range mirrors {
			t.Run(dir+"/"+m.iface+"/"+m.name, func(t *testing.T) {
				iface, ok := ifaces[m.iface]
				if !ok {
					if m.seedOnly && dir == "wit/v0" {
						return
					}
					t.Fatalf("interface %s missing", m.iface)
				}
				td := iface.TypeDefs.Get(m.name)
				if td == nil {
					t.Fatalf("type %s missing", m.name)
				}
				at, err := fromWIT(td)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := abi.NewCodec(m.gt, at); err != nil {
					t.Fatalf("%s does not mirror %s: %v", m.gt, at, err)
				}
			})
		}
	}
}

// TestMirrorsRefuseDrift makes sure the check above can fail: a mirror with a renamed field, a
// missing enum case or an extra flag is refused.
func TestMirrorsRefuseDrift(t *testing.T) {
	type renamed struct {
		Success bool
		Text    string
		Error   *string
	}
	tr := abi.Must(abi.RecordOf(abi.Field{Name: "success", Type: abi.Bool}, abi.Field{Name: "output", Type: abi.String},
		abi.Field{Name: "error", Type: abi.Must(abi.OptionOf(abi.String))}))
	if _, err := abi.NewCodec(reflect.TypeFor[renamed](), tr); err == nil {
		t.Error("a renamed field was accepted")
	}
	short := abi.Must(abi.EnumOf("trace", "debug", "info", "warn"))
	if _, err := abi.NewCodec(reflect.TypeFor[LogLevel](), short); err == nil {
		t.Error("an enum with a missing case was accepted")
	}
	more := abi.Must(abi.FlagsOf(append(memoryCapabilityLabels[:len(memoryCapabilityLabels):len(memoryCapabilityLabels)], "extra")...))
	if _, err := abi.NewCodec(reflect.TypeFor[MemoryCapabilities](), more); err == nil {
		t.Error("flags with an extra label were accepted")
	}
}

func TestLabels(t *testing.T) {
	tests := []struct{ got, want string }{
		{LogWarn.String(), "warn"},
		{PluginAction(25).String(), "list-action"},
		{PluginAction(37).String(), "memory-audit"},
		{PluginAction(38).String(), "unknown"},
		{OutcomeFailure.String(), "failure"},
		{SecretNotFound.String(), "not-found"},
		{ConfigUnavailable.String(), "unavailable"},
		{fmt.Sprint((ChannelSelfHandle | ChannelSupportsFreeFormAsk).Labels()), "[self-handle supports-free-form-ask]"},
		{fmt.Sprint(MemoryStoreWithMetadata.Labels()), "[store-with-metadata]"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if len(pluginActionLabels) != 38 || len(channelCapabilityLabels) != 22 || len(memoryCapabilityLabels) != 11 {
		t.Fatalf("label counts %d %d %d", len(pluginActionLabels), len(channelCapabilityLabels), len(memoryCapabilityLabels))
	}
}
