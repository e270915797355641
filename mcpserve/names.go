package mcpserve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// MaxToolName is the longest name a tool is listed under.
const MaxToolName = 64

// hashDigits is how many hexadecimal digits of the hash end a shortened name.
const hashDigits = 8

// ToolName is the name a tool of source is listed under: SOURCE__TOOL with every character outside
// A-Z, a-z, 0-9, '_' and '-' replaced by '_', shortened to MaxToolName with a stable hash suffix
// when longer (see the package documentation).
func ToolName(source, tool string) string {
	return capName(sanitize(source)+"__"+sanitize(tool), source, tool)
}

// BareToolName is the name a tool is listed under without its source (PackageSpec.NoPrefix): the
// tool's own name, sanitized and shortened as ToolName does.
func BareToolName(source, tool string) string { return capName(sanitize(tool), source, tool) }

func capName(name, source, tool string) string {
	if len(name) <= MaxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(source + "\x00" + tool))
	return name[:MaxToolName-hashDigits-1] + "_" + hex.EncodeToString(sum[:])[:hashDigits]
}

func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else if c < 0x80 || c >= 0xC0 {
			// One '_' per character: continuation bytes of a UTF-8 sequence add nothing.
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		// Only stray UTF-8 continuation bytes: still one character for a name.
		return "_"
	}
	return b.String()
}

// origin says where a listed tool comes from, for messages.
type origin struct {
	kind   string // "package" or "plugin"
	source string // the source's name
	where  string // the package path or plugin directory
	tool   string // the tool's own name
}

func (o origin) String() string {
	return fmt.Sprintf("tool %q of %s %q (%s)", o.tool, o.kind, o.source, o.where)
}

// checkCollisions reports every listed name two tools share, naming both.
func checkCollisions(names map[string][]origin) error {
	var msgs []string
	for name, os := range names {
		if len(os) > 1 {
			parts := make([]string, len(os))
			for i, o := range os {
				parts[i] = o.String()
			}
			msgs = append(msgs, fmt.Sprintf("%q would name both %s", name, strings.Join(parts, " and ")))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	sort.Strings(msgs)
	return fmt.Errorf("mcpserve: tools: %w: %s; give a package another name with NAME=PATH or name = \"…\" in [[mcp.packages]]",
		ErrCollision, strings.Join(msgs, "; "))
}
