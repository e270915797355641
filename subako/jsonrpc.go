package subako

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kobako/kobako/subako/wire"
)

// messageKind classifies a JSON-RPC 2.0 message a module writes to stdout.
type messageKind int

// The message kinds.
const (
	// kindNotification is a message without an id (a notification, or a response whose id is
	// null); ABI 1 ignores it.
	kindNotification messageKind = iota + 1
	// kindRequest is a request: a method and an id. A stateless server must not send one.
	kindRequest
	// kindResult is a successful response.
	kindResult
	// kindError is an error response.
	kindError
)

// message is one parsed stdout line.
type message struct {
	Kind messageKind
	// ID is the id exactly as written (a JSON string or number); nil for a notification.
	ID json.RawMessage
	// Method is the method of a request or notification.
	Method string
	// Result is the result of a kindResult response.
	Result json.RawMessage
	// Error is the error of a kindError response.
	Error *wire.ErrorObject
}

// parseMessage parses one stdout line (without its newline) as a JSON-RPC 2.0 message: a JSON
// object with "jsonrpc":"2.0" that is a request or notification (a string "method", an optional
// id) or a response (exactly one of "result" and "error", and an id). Ids are strings or numbers;
// an absent or null id makes the message a notification. Anything else is an error wrapping
// ErrMessage that says what is wrong.
func parseMessage(line []byte) (*message, error) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("subako: message: %w: %s is not a JSON object", ErrMessage, quoteLine(line))
	}
	var w wire.Message
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return nil, fmt.Errorf("subako: message: %w: %s: %v", ErrMessage, quoteLine(line), err)
	}
	if string(w.JSONRPC) != `"`+wire.Version+`"` {
		return nil, fmt.Errorf("subako: message: %w: \"jsonrpc\" must be \"2.0\" in %s", ErrMessage, quoteLine(line))
	}
	m := &message{}
	hasID := len(w.ID) > 0 && string(w.ID) != "null"
	if hasID && w.ID[0] != '"' && w.ID[0] != '-' && (w.ID[0] < '0' || w.ID[0] > '9') {
		return nil, fmt.Errorf("subako: message: %w: the id %s is neither a string nor a number", ErrMessage, clip(w.ID))
	}
	if hasID {
		m.ID = w.ID
	}
	if w.Method != nil {
		if w.Result != nil || w.Error != nil {
			return nil, fmt.Errorf("subako: message: %w: a message with a method cannot carry a result or error", ErrMessage)
		}
		if err := json.Unmarshal(w.Method, &m.Method); err != nil || w.Method[0] != '"' {
			return nil, fmt.Errorf("subako: message: %w: \"method\" must be a string, found %s", ErrMessage, clip(w.Method))
		}
		if w.Params != nil && w.Params[0] != '{' && w.Params[0] != '[' {
			return nil, fmt.Errorf("subako: message: %w: \"params\" must be an object or array", ErrMessage)
		}
		m.Kind = kindNotification
		if hasID {
			m.Kind = kindRequest
		}
		return m, nil
	}
	switch {
	case w.Result != nil && w.Error != nil:
		return nil, fmt.Errorf("subako: message: %w: a response carries both \"result\" and \"error\"", ErrMessage)
	case w.Result != nil:
		m.Kind, m.Result = kindResult, w.Result
	case w.Error != nil:
		var e wire.ErrorObject
		d := json.NewDecoder(bytes.NewReader(w.Error))
		if w.Error[0] != '{' || d.Decode(&e) != nil {
			return nil, fmt.Errorf("subako: message: %w: \"error\" must be an object with an integer code and a message, found %s", ErrMessage, clip(w.Error))
		}
		m.Kind, m.Error = kindError, &e
	default:
		return nil, fmt.Errorf("subako: message: %w: %s has no method, result or error", ErrMessage, quoteLine(line))
	}
	if !hasID {
		m.Kind, m.Result, m.Error = kindNotification, nil, nil
	}
	return m, nil
}

// quoteLine quotes the start of a line for an error message.
func quoteLine(b []byte) string { return fmt.Sprintf("the line %q", clip(b)) }

func clip(b []byte) string {
	const max = 120
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
