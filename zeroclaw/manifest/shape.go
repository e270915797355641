package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// SkillsDir is the subdirectory of a skill-capable plugin holding its skills.
const SkillsDir = "skills"

// SkillFile is the file every skill directory must hold.
const SkillFile = "SKILL.md"

// MaxSkillFileBytes caps how much of a SKILL.md is read while checking its
// front matter.
const MaxSkillFileBytes = 1 << 20

// Skill is one validated skill of a skill bundle.
type Skill struct {
	// ID is the namespaced registration id, "plugin:<plugin>/<skill>".
	ID string `json:"id"`
	// Name and Description come from the SKILL.md front matter.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Dir is the skill's directory.
	Dir string `json:"dir"`
}

// ValidatePackageName checks the package-name grammar shared by manifests
// and instance identities: 1 to 128 bytes of [a-z0-9._-], starting with a
// lower-case letter or digit and ending with a letter or digit (upper case
// cannot occur, the byte set excludes it). The error text is the reference's.
func ValidatePackageName(name string) error {
	ok := len(name) >= 1 && len(name) <= 128
	if ok {
		first, last := name[0], name[len(name)-1]
		ok = isLowerOrDigit(first) && (isLowerOrDigit(last) || (last >= 'A' && last <= 'Z'))
	}
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = isLowerOrDigit(c) || c == '-' || c == '_' || c == '.'
	}
	if !ok {
		return fmt.Errorf("plugin package must be a 1-128 character lowercase ASCII slug, start with a letter or digit, end with a letter or digit, and use only '-', '_', or '.' as separators (got %s)", rustDebugString(name))
	}
	return nil
}

func isLowerOrDigit(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') }

// ValidateSubpath rejects a manifest-supplied relative path that could leave
// the plugin directory: absolute paths, root or drive-prefixed paths (on any
// platform, so a manifest written for Windows cannot escape on Windows), and
// any ".." component.
func ValidateSubpath(field, plugin, p string) error {
	escapes := p == "" ||
		strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) ||
		filepath.IsAbs(p) ||
		(len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0])) ||
		strings.ContainsRune(p, 0)
	if !escapes {
		for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
			if part == ".." {
				escapes = true
				break
			}
		}
	}
	if escapes {
		return fmt.Errorf("%w: plugin '%s' has an invalid `%s` (%s): it must be a relative path inside the plugin directory", ErrInvalidManifest, plugin, field, rustDebugString(p))
	}
	return nil
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// ValidateShape applies the reference's shape checks in its order: the name
// grammar, wasm_path containment, a non-empty capability list, wasm_path
// present unless the plugin is skill-only, and for skill plugins a valid
// skill bundle under pluginDir. It returns the bundle's skills (nil for
// plugins without the skill capability).
func ValidateShape(m *Manifest, pluginDir string) ([]Skill, error) {
	if err := ValidatePackageName(m.Name); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidManifest, err)
	}
	if m.WasmPath != "" {
		if err := ValidateSubpath("wasm_path", m.Name, m.WasmPath); err != nil {
			return nil, err
		}
	}
	if len(m.Capabilities) == 0 {
		return nil, fmt.Errorf("%w: plugin '%s' declares no capabilities", ErrInvalidManifest, m.Name)
	}
	if !m.SkillOnly() && m.WasmPath == "" {
		return nil, fmt.Errorf("%w: plugin '%s' is missing required `wasm_path` for non-skill capabilities", ErrInvalidManifest, m.Name)
	}
	if m.HasCapability(CapabilitySkill) {
		return ValidateSkillBundle(m.Name, pluginDir)
	}
	return nil, nil
}

// ValidateSkillBundle checks <pluginDir>/skills: it must be a directory with
// at least one subdirectory, and every subdirectory must hold a SKILL.md
// whose front matter declares non-empty name and description. Plain files
// directly under skills/ are ignored. Skills are returned sorted by
// directory name.
func ValidateSkillBundle(plugin, pluginDir string) ([]Skill, error) {
	skillsDir := filepath.Join(pluginDir, SkillsDir)
	if fi, err := os.Stat(skillsDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: skill plugin '%s' is missing `skills/` directory at %s", ErrInvalidManifest, plugin, skillsDir)
	}
	entries, err := os.ReadDir(skillsDir)
	if err != nil {
		return nil, fmt.Errorf("%w: skill plugin '%s': %v", ErrInvalidManifest, plugin, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var skills []Skill
	for _, e := range entries {
		dir := filepath.Join(skillsDir, e.Name())
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		mdPath := filepath.Join(dir, SkillFile)
		if fi, err := os.Stat(mdPath); err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: skill plugin '%s' subdirectory '%s' is missing SKILL.md", ErrInvalidManifest, plugin, e.Name())
		}
		content, err := ReadCapped(mdPath, MaxSkillFileBytes)
		if err != nil {
			return nil, fmt.Errorf("%w: skill plugin '%s': %v", ErrInvalidManifest, plugin, err)
		}
		name, desc, err := SkillFrontMatter(string(content))
		if err != nil {
			return nil, fmt.Errorf("%w: skill plugin '%s': %s %v", ErrInvalidManifest, plugin, mdPath, err)
		}
		skills = append(skills, Skill{
			ID:          "plugin:" + plugin + "/" + unquoteYAMLScalar(name),
			Name:        unquoteYAMLScalar(name),
			Description: unquoteYAMLScalar(desc),
			Dir:         dir,
		})
	}
	if len(skills) == 0 {
		return nil, fmt.Errorf("%w: skill plugin '%s' has empty `skills/` directory", ErrInvalidManifest, plugin)
	}
	return skills, nil
}

// SkillFrontMatter extracts the name and description from a SKILL.md the way
// the reference checks it: after CRLF→LF the text must start with "---\n",
// the front matter ends at "\n---\n" or a final "\n---", and a line scan of
// "key: value" pairs (not a YAML parse) must find non-empty name and
// description values. The errors complete "<path> ...".
func SkillFrontMatter(content string) (name, description string, err error) {
	normalized := strings.ReplaceAll(content, "\r\n", "\n")
	rest, ok := strings.CutPrefix(normalized, "---\n")
	if !ok {
		return "", "", fmt.Errorf("is missing YAML frontmatter")
	}
	var front string
	if i := strings.Index(rest, "\n---\n"); i >= 0 {
		front = rest[:i]
	} else if s, ok := strings.CutSuffix(rest, "\n---"); ok {
		front = s
	} else {
		return "", "", fmt.Errorf("has unterminated frontmatter")
	}
	hasName, hasDesc := false, false
	for _, line := range strings.Split(front, "\n") {
		line = strings.TrimSuffix(line, "\r")
		key, value, found := strings.Cut(strings.TrimLeftFunc(line, unicode.IsSpace), ":")
		if !found {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if value == "" {
			continue
		}
		switch key {
		case "name":
			if !hasName {
				name, hasName = value, true
			}
		case "description":
			if !hasDesc {
				description, hasDesc = value, true
			}
		}
	}
	if !hasName || !hasDesc {
		return "", "", fmt.Errorf("frontmatter must declare `name` and `description`")
	}
	return name, description, nil
}

// unquoteYAMLScalar strips one pair of matching YAML quotes, so the skill id
// of `name: "design-review"` is plugin:<p>/design-review.
func unquoteYAMLScalar(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// rustDebugString quotes s the way Rust's {:?} does for the characters that
// matter in these messages.
func rustDebugString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case 0:
			sb.WriteString(`\0`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&sb, `\u{%x}`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// RustDebugString is the {:?} quoting the reference uses in messages.
func RustDebugString(s string) string { return rustDebugString(s) }

// versionPattern is semver.org 2.0.0's grammar (its suggested regular expression) with MINOR and
// PATCH optional: "1" and "1.2" are accepted, as the reference accepts any string and manifests
// in use (this repository's own fixtures among them) write them.
var versionPattern = regexp.MustCompile(`^(0|[1-9]\d*)(?:\.(0|[1-9]\d*)){0,2}` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// CheckVersion refuses a version that is not a version number. The reference takes any string,
// and discovery still does; kobako's install refuses "not-a-version" or "v1.0", which registries
// cannot compare and operators misread, before it is installed.
func CheckVersion(m *Manifest) error {
	if !versionPattern.MatchString(m.Version) {
		return fmt.Errorf("%w: plugin '%s' has version %q, which is not a version number (semantic versioning: MAJOR.MINOR.PATCH such as 0.1.0 or 1.2.0-beta.1)", ErrInvalidManifest, m.Name, m.Version)
	}
	return nil
}
