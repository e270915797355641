package signature

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/kobako/kobako/zeroclaw/internal/tomldepth"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// The root keys a signature does not cover.
const (
	keySignature    = "signature"
	keyPublisherKey = "publisher_key"
)

const utf8BOM = "\xef\xbb\xbf"

// Canonicalize returns the bytes a manifest signature covers, computed as the
// reference host computes them with toml_edit: the text must parse as TOML;
// the root-table entries `signature` and `publisher_key` are removed together
// with their decor (the blank and comment lines above them back to the
// previous statement, and their same-line comment); everything else is kept
// exactly as written; the result is split into lines (LF or CRLF endings),
// trailing blank or whitespace-only lines are dropped, and the lines are
// joined with LF without a final newline.
//
// Keys with those names nested in tables (config_schema.properties.signature)
// and similar root keys (signature_algorithm) stay covered. A `signature`
// written after the first [table] header belongs to that table, so it is
// covered too, and the manifest counts as unsigned.
func Canonicalize(manifestTOML string) ([]byte, error) {
	if err := checkTOML(manifestTOML); err != nil {
		return nil, err
	}
	text := strings.TrimPrefix(manifestTOML, utf8BOM)
	stripped, err := removeRootSignatureFields(text)
	if err != nil {
		return nil, err
	}
	return normalizeLines(stripped), nil
}

func checkTOML(text string) error {
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: invalid TOML: not valid UTF-8", manifest.ErrInvalidManifest)
	}
	if err := tomldepth.Check(text, tomldepth.Max); err != nil {
		return fmt.Errorf("%w: invalid TOML: %v", manifest.ErrInvalidManifest, err)
	}
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		return fmt.Errorf("%w: invalid TOML: %v", manifest.ErrInvalidManifest, err)
	}
	return nil
}

// normalizeLines is the reference's tail: Rust str::lines() (split on LF, a
// CR right before the LF is dropped, no empty last line after a final LF),
// trailing lines that are empty or Unicode whitespace only are dropped, and
// the rest is joined with LF.
func normalizeLines(text string) []byte {
	var lines []string
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, strings.TrimSuffix(text[:i], "\r"))
		text = text[i+1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return []byte(strings.Join(lines, "\n"))
}

// statement is one root key-value statement: text[start:end] holds its
// leading decor (everything after the previous statement's line ending), the
// statement, its trailing comment and its own line ending.
type statement struct {
	start, end int
	// first is the decoded first segment of the (possibly dotted) key.
	first string
}

// rootStatements splits the root table of a TOML document into statements.
// rest is the offset where the root table's statements end: the start of the
// decor before the first [table] header, or of the document's trailing decor.
func rootStatements(text string) (stmts []statement, rest int, err error) {
	s := scanner{text: text}
	declStart := 0
	for {
		s.skipDecor()
		if s.pos >= len(text) || text[s.pos] == '[' {
			return stmts, declStart, nil
		}
		first, err := s.key()
		if err != nil {
			return nil, 0, err
		}
		s.skipSpaces()
		if s.pos >= len(text) || text[s.pos] != '=' {
			return nil, 0, fmt.Errorf("%w: invalid TOML: expected '=' after key at byte %d", manifest.ErrInvalidManifest, s.pos)
		}
		s.pos++
		s.skipValue()
		s.lineEnd()
		stmts = append(stmts, statement{start: declStart, end: s.pos, first: first})
		declStart = s.pos
	}
}

// removeRootSignatureFields deletes every root statement whose key starts
// with `signature` or `publisher_key` (a dotted `signature.x` defines the
// same root entry), decor included, and keeps the rest byte for byte.
func removeRootSignatureFields(text string) (string, error) {
	stmts, rest, err := rootStatements(text)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.Grow(len(text))
	for _, st := range stmts {
		if st.first == keySignature || st.first == keyPublisherKey {
			continue
		}
		sb.WriteString(text[st.start:st.end])
	}
	sb.WriteString(text[rest:])
	return sb.String(), nil
}

type scanner struct {
	text string
	pos  int
}

func (s *scanner) skipSpaces() {
	for s.pos < len(s.text) && (s.text[s.pos] == ' ' || s.text[s.pos] == '\t') {
		s.pos++
	}
}

// skipDecor skips whitespace, comments and line endings between statements.
func (s *scanner) skipDecor() {
	for s.pos < len(s.text) {
		switch s.text[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		case '#':
			s.skipComment()
		default:
			return
		}
	}
}

func (s *scanner) skipComment() {
	for s.pos < len(s.text) && s.text[s.pos] != '\n' {
		s.pos++
	}
}

// lineEnd consumes trailing spaces, a comment and one line ending.
func (s *scanner) lineEnd() {
	s.skipSpaces()
	if s.pos < len(s.text) && s.text[s.pos] == '#' {
		s.skipComment()
	}
	if strings.HasPrefix(s.text[s.pos:], "\r\n") {
		s.pos += 2
	} else if s.pos < len(s.text) && s.text[s.pos] == '\n' {
		s.pos++
	}
}

// key reads a possibly dotted key and returns its first segment, decoded.
func (s *scanner) key() (string, error) {
	var first string
	for seg := 0; ; seg++ {
		s.skipSpaces()
		if s.pos >= len(s.text) {
			return "", fmt.Errorf("%w: invalid TOML: unexpected end of key", manifest.ErrInvalidManifest)
		}
		var part string
		switch s.text[s.pos] {
		case '"':
			part = s.basicKey()
		case '\'':
			part = s.literalKey()
		default:
			start := s.pos
			for s.pos < len(s.text) && !strings.ContainsRune(" \t.=#\r\n\"'[]{}", rune(s.text[s.pos])) {
				s.pos++
			}
			if s.pos == start {
				return "", fmt.Errorf("%w: invalid TOML: expected a key at byte %d", manifest.ErrInvalidManifest, start)
			}
			part = s.text[start:s.pos]
		}
		if seg == 0 {
			first = part
		}
		s.skipSpaces()
		if s.pos < len(s.text) && s.text[s.pos] == '.' {
			s.pos++
			continue
		}
		return first, nil
	}
}

func (s *scanner) basicKey() string {
	s.pos++ // opening quote
	var sb strings.Builder
	for s.pos < len(s.text) {
		c := s.text[s.pos]
		switch {
		case c == '"':
			s.pos++
			return sb.String()
		case c == '\n':
			return sb.String()
		case c == '\\' && s.pos+1 < len(s.text):
			s.pos++
			s.escape(&sb)
		default:
			sb.WriteByte(c)
			s.pos++
		}
	}
	return sb.String()
}

func (s *scanner) escape(sb *strings.Builder) {
	c := s.text[s.pos]
	s.pos++
	switch c {
	case 'b':
		sb.WriteByte('\b')
	case 't':
		sb.WriteByte('\t')
	case 'n':
		sb.WriteByte('\n')
	case 'f':
		sb.WriteByte('\f')
	case 'r':
		sb.WriteByte('\r')
	case 'e':
		sb.WriteByte(0x1b)
	case '"', '\\':
		sb.WriteByte(c)
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		if s.pos+n <= len(s.text) {
			if v, err := strconv.ParseUint(s.text[s.pos:s.pos+n], 16, 32); err == nil {
				sb.WriteRune(rune(v))
				s.pos += n
				return
			}
		}
		sb.WriteByte('\\')
		sb.WriteByte(c)
	default:
		sb.WriteByte('\\')
		sb.WriteByte(c)
	}
}

func (s *scanner) literalKey() string {
	s.pos++
	start := s.pos
	for s.pos < len(s.text) && s.text[s.pos] != '\'' && s.text[s.pos] != '\n' {
		s.pos++
	}
	part := s.text[start:s.pos]
	if s.pos < len(s.text) && s.text[s.pos] == '\'' {
		s.pos++
	}
	return part
}

// skipValue moves to the line ending (or end of text) that closes the value:
// strings are skipped whole, brackets and braces may span lines, and
// comments inside multi-line arrays are skipped.
func (s *scanner) skipValue() {
	depth := 0
	for s.pos < len(s.text) {
		switch c := s.text[s.pos]; c {
		case '"', '\'':
			s.skipString(c)
			continue
		case '[', '{':
			depth++
		case ']', '}':
			if depth > 0 {
				depth--
			}
		case '#':
			s.skipComment()
			continue
		case '\n':
			if depth == 0 {
				return
			}
		case '\r':
			if depth == 0 && strings.HasPrefix(s.text[s.pos:], "\r\n") {
				return
			}
		}
		s.pos++
	}
}

func (s *scanner) skipString(q byte) {
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(s.text[s.pos:], triple) {
		s.pos += 3
		for s.pos < len(s.text) {
			c := s.text[s.pos]
			if c == '\\' && q == '"' {
				s.pos += 2
				continue
			}
			if c == q && strings.HasPrefix(s.text[s.pos:], triple) {
				// A run of up to five quotes closes the string; the first one
				// or two are content.
				run := 0
				for s.pos < len(s.text) && s.text[s.pos] == q && run < 5 {
					s.pos++
					run++
				}
				return
			}
			s.pos++
		}
		s.pos = min(s.pos, len(s.text))
		return
	}
	s.pos++
	for s.pos < len(s.text) {
		c := s.text[s.pos]
		switch {
		case c == '\\' && q == '"':
			s.pos += 2
			continue
		case c == q:
			s.pos++
			return
		case c == '\n':
			return
		}
		s.pos++
	}
	s.pos = min(s.pos, len(s.text))
}
