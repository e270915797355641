// Package tomldepth bounds the nesting of TOML text before it reaches the
// TOML decoder, whose time grows quadratically or worse with the nesting of
// inline tables and with the number of segments of a dotted key: a 1 MiB
// manifest of "{b={b=…" or "a.a.a.…" would otherwise keep discovery busy
// for hours.
package tomldepth

import (
	"fmt"
	"strings"
)

// Max is the deepest array / inline-table nesting, and the most segments of
// a dotted key or table header, accepted: a config_schema may nest only 32
// levels, and the decoder's cost per key grows with the square of its depth,
// so together with the manifest size cap this keeps the worst manifest to a
// fraction of a second.
const Max = 40

// Budget bounds the decoder's total key-nesting work: each opening bracket
// or key dot adds the nesting level it reaches (twice for an inline table),
// so a statement nested d levels costs about d²/2. Real manifests use a few thousand units; a
// hostile one is refused before it can cost more than about half a second.
const Budget = 1 << 20

// Check reports an error when arrays and inline tables in text nest deeper
// than max, a dotted key or table header has more than max segments, or the
// nesting work of the whole text exceeds Budget.
// Strings and comments are skipped, so brackets and dots inside them do not
// count. It does not validate the TOML.
func Check(text string, max int) error {
	depth, dots, work := 0, 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		switch c {
		case '.':
			// Dots between two delimiters belong to one dotted key (or to one
			// number or time, which has at most one).
			dots++
			if dots >= max {
				return fmt.Errorf("a dotted key or table header has more than %d segments", max)
			}
			work += depth + dots
		case '\n', '=', ',', '[', ']', '{', '}':
			dots = 0
		}
		switch c {
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case '"', '\'':
			i = skipString(text, i, c)
			continue
		case '[', '{':
			depth++
			if depth > max {
				return fmt.Errorf("arrays and inline tables nest deeper than %d levels", max)
			}
			work += depth + dots
			if c == '{' {
				// Inline tables cost the decoder about twice what arrays do.
				work += depth + dots
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
		if work > Budget {
			return fmt.Errorf("nested arrays, inline tables and dotted keys exceed the parser's budget")
		}
		i++
	}
	return nil
}

// skipString returns the index just past the string starting at i.
func skipString(text string, i int, q byte) int {
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(text[i:], triple) {
		i += 3
		for i < len(text) {
			switch {
			case text[i] == '\\' && q == '"':
				i += 2
			case strings.HasPrefix(text[i:], triple):
				for i < len(text) && text[i] == q {
					i++
				}
				return i
			default:
				i++
			}
		}
		return len(text)
	}
	for i++; i < len(text); i++ {
		switch {
		case text[i] == '\\' && q == '"':
			i++
		case text[i] == q:
			return i + 1
		case text[i] == '\n':
			return i
		}
	}
	return len(text)
}
