package wire

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The answers of a package that starts afresh for every call are written by hand rather than with
// encoding/json: the first json.Marshal of each type builds that type's encoder by reflection, and
// those encoders were most of a tools/call's work. The bytes are those json.Marshal writes for the
// same values (encode_test.go checks this on random values).

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string escaped as encoding/json escapes it: HTML-sensitive
// characters, U+2028 and U+2029 as \u escapes, and each byte of invalid UTF-8 as U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendRaw appends a JSON value as json.Marshal writes a json.RawMessage: compacted, with the
// HTML-sensitive characters in its strings escaped. It fails, appending nothing, when raw is not
// one valid JSON value.
func AppendRaw(b []byte, raw []byte) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return b, err
	}
	out := bytes.NewBuffer(b)
	json.HTMLEscape(out, compact.Bytes())
	return out.Bytes(), nil
}

// AppendServerInfoMeta appends the ServerInfoMeta naming a package, as json.Marshal writes it.
func AppendServerInfoMeta(b []byte, name, version string) []byte {
	b = append(b, `{"`...)
	b = append(b, MetaServerInfo...)
	b = append(b, `":{"name":`...)
	b = AppendString(b, name)
	b = append(b, `,"version":`...)
	b = AppendString(b, version)
	return append(b, "}}"...)
}
