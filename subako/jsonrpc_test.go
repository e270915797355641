package subako

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseMessage(t *testing.T) {
	tests := []struct {
		line   string
		kind   messageKind
		id     string
		method string
	}{
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, kindResult, `"a"`, ""},
		{`{"jsonrpc":"2.0","id":7,"result":null}`, kindResult, `7`, ""},
		{` {"jsonrpc":"2.0","id":-1.5e3,"error":{"code":-32603,"message":"x"}} `, kindError, `-1.5e3`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, kindNotification, "", "notifications/message"},
		{`{"jsonrpc":"2.0","id":null,"method":"notifications/x"}`, kindNotification, "", "notifications/x"},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, kindNotification, "", ""},
		{`{"jsonrpc":"2.0","id":"r1","method":"sampling/createMessage","params":[]}`, kindRequest, `"r1"`, "sampling/createMessage"},
	}
	for _, tt := range tests {
		m, err := parseMessage([]byte(tt.line))
		if err != nil || m.Kind != tt.kind || string(m.ID) != tt.id || m.Method != tt.method {
			t.Errorf("%s: %+v, %v", tt.line, m, err)
		}
	}
}

func TestParseMessage_Errors(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{``, "not a JSON object"},
		{`hello`, "not a JSON object"},
		{`[{"jsonrpc":"2.0"}]`, "not a JSON object"},
		{`{"jsonrpc":"2.0","id":"a","result":{}`, "unexpected end"},
		{`{"id":"a","result":{}}`, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"1.0","id":"a","result":{}}`, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":{},"result":{}}`, "neither a string nor a number"},
		{`{"jsonrpc":"2.0","id":true,"result":{}}`, "neither a string nor a number"},
		{`{"jsonrpc":"2.0","id":"a"}`, "no method, result or error"},
		{`{"jsonrpc":"2.0","id":"a","result":{},"error":{"code":1,"message":"x"}}`, "both"},
		{`{"jsonrpc":"2.0","id":"a","error":"bad"}`, `"error" must be an object`},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":1.5,"message":"x"}}`, `"error" must be an object`},
		{`{"jsonrpc":"2.0","method":7}`, `"method" must be a string`},
		{`{"jsonrpc":"2.0","method":"m","params":3}`, `"params" must be an object or array`},
		{`{"jsonrpc":"2.0","method":"m","result":{}}`, "cannot carry a result"},
	} {
		_, err := parseMessage([]byte(tt.line))
		if !errors.Is(err, ErrMessage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.line, err, tt.want)
		}
	}
}

// TestParseMessage_Property: any line either parses into a consistent message or fails with
// ErrMessage; it never panics.
func TestParseMessage_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := []string{`{`, `}`, `"jsonrpc":"2.0"`, `"id":"x"`, `"id":1`, `"id":null`, `"method":"m"`, `"result":{}`, `"error":{"code":1,"message":"m"}`, `,`, `"params":{}`, `[`, `]`, `"`}
		var sb strings.Builder
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(parts)-1), 0, 12).Draw(t, "parts") {
			sb.WriteString(parts[i])
		}
		m, err := parseMessage([]byte(sb.String()))
		if err != nil {
			if !errors.Is(err, ErrMessage) {
				t.Fatalf("error %v does not wrap ErrMessage", err)
			}
			return
		}
		switch m.Kind {
		case kindNotification:
			if m.ID != nil || m.Result != nil || m.Error != nil {
				t.Fatalf("notification with id/result/error: %+v", m)
			}
		case kindRequest:
			if m.ID == nil || m.Method == "" && !strings.Contains(sb.String(), `"method":""`) {
				t.Fatalf("request without id: %+v", m)
			}
		case kindResult:
			if m.ID == nil || m.Result == nil {
				t.Fatalf("result without id or result: %+v", m)
			}
		case kindError:
			if m.ID == nil || m.Error == nil {
				t.Fatalf("error without id or error: %+v", m)
			}
		default:
			t.Fatalf("kind %d", m.Kind)
		}
	})
}
