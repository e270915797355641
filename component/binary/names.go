package binary

import (
	"fmt"
	"strconv"
	"strings"
)

// NameKind says which form of import or export name a Name is (Explainer.md, "Import and Export
// Definitions").
type NameKind uint8

// The forms of extern names.
const (
	// NameLabel is a plain kebab-case label such as "get-JSON".
	NameLabel NameKind = iota + 1
	// NameConstructor is "[constructor]R".
	NameConstructor
	// NameMethod is "[method]R.m".
	NameMethod
	// NameStatic is "[static]R.f".
	NameStatic
	// NameInterface is "ns:pkg/iface" with an optional "@version".
	NameInterface
)

// String returns "label", "constructor", "method", "static" or "interface".
func (k NameKind) String() string {
	switch k {
	case NameLabel:
		return "label"
	case NameConstructor:
		return "constructor"
	case NameMethod:
		return "method"
	case NameStatic:
		return "static"
	case NameInterface:
		return "interface"
	}
	return "name"
}

// Name is a parsed import or export name.
type Name struct {
	// Raw is the name as written in the binary.
	Raw  string
	Kind NameKind
	// Label is the label of a NameLabel, or the resource of a constructor, method or static.
	Label string
	// Member is the function's label of a NameMethod or NameStatic.
	Member string
	// Namespace, Package, Interface and Version are the parts of a NameInterface
	// ("wasi", "io", "streams", "0.2.0"); Version is empty when the name has none.
	Namespace, Package, Interface, Version string
	// Attributes of the 0x02 name encoding: (implements "…"), (versionsuffix "…"),
	// (external-id "…"). Empty when absent.
	Implements, VersionSuffix, ExternalID string
}

// String returns the raw name.
func (n Name) String() string { return n.Raw }

// Unversioned returns an interface name without its version ("wasi:io/streams"), and any other
// name unchanged.
func (n Name) Unversioned() string {
	if n.Kind == NameInterface {
		return n.Namespace + ":" + n.Package + "/" + n.Interface
	}
	return n.Raw
}

// ParseName parses and checks an import or export name: a kebab-case label, an annotated
// resource function name, or an interface name with an optional semver version.
func ParseName(s string) (Name, error) {
	n := Name{Raw: s}
	switch {
	case strings.HasPrefix(s, "[constructor]"):
		n.Kind = NameConstructor
		n.Label = s[len("[constructor]"):]
		if !IsLabel(n.Label) {
			return n, fmt.Errorf("%s is not a kebab-case label", q(n.Label))
		}
		return n, nil
	case strings.HasPrefix(s, "[method]"), strings.HasPrefix(s, "[static]"):
		n.Kind = NameMethod
		rest := s[len("[method]"):]
		if strings.HasPrefix(s, "[static]") {
			n.Kind = NameStatic
			rest = s[len("[static]"):]
		}
		r, m, ok := strings.Cut(rest, ".")
		if !ok {
			return n, fmt.Errorf("expected `.` between resource and function in %s", q(rest))
		}
		if !IsLabel(r) {
			return n, fmt.Errorf("%s is not a kebab-case label", q(r))
		}
		if !IsLabel(m) {
			return n, fmt.Errorf("%s is not a kebab-case label", q(m))
		}
		n.Label, n.Member = r, m
		return n, nil
	case strings.HasPrefix(s, "[async"):
		return n, unsupported("the async function name annotation in " + q(s))
	case strings.HasPrefix(s, "["):
		return n, fmt.Errorf("unknown name annotation in %s", q(s))
	}
	for _, p := range []string{"locked-dep=", "unlocked-dep=", "url=", "integrity="} {
		if strings.HasPrefix(s, p) {
			return n, unsupported("the dependency name form `" + p + "…`")
		}
	}
	if !strings.Contains(s, ":") {
		n.Kind = NameLabel
		n.Label = s
		if !IsLabel(s) {
			return n, fmt.Errorf("%s is not a kebab-case label", q(s))
		}
		return n, nil
	}
	n.Kind = NameInterface
	path, version, hasVersion := strings.Cut(s, "@")
	ns, rest, _ := strings.Cut(path, ":")
	if !isWords(ns) {
		return n, fmt.Errorf("namespace %s is not lower-case kebab-case", q(ns))
	}
	pkg, iface, ok := strings.Cut(rest, "/")
	if strings.Contains(pkg, ":") {
		return n, unsupported("the nested package namespace in " + q(s))
	}
	if !isWords(pkg) {
		return n, fmt.Errorf("package %s is not lower-case kebab-case", q(pkg))
	}
	if !ok {
		return n, fmt.Errorf("expected `/` and an interface after the package in %s", q(s))
	}
	if strings.Contains(iface, "/") {
		return n, unsupported("the nested interface projection in " + q(s))
	}
	if !IsLabel(iface) {
		return n, fmt.Errorf("interface %s is not a kebab-case label", q(iface))
	}
	n.Namespace, n.Package, n.Interface = ns, pkg, iface
	if hasVersion {
		if _, err := ParseSemver(version); err != nil && !isCanonVersion(version) {
			return n, fmt.Errorf("version %s: %v", q(version), err)
		}
		n.Version = version
	}
	return n, nil
}

// checkVersion requires an interface version to be a full semver, unless a versionsuffix
// attribute completes a canonical version ("0.2" with ".6").
func checkVersion(n Name) error {
	if n.Kind != NameInterface || n.Version == "" || n.VersionSuffix != "" {
		return nil
	}
	if _, err := ParseSemver(n.Version); err != nil {
		return fmt.Errorf("version %s: %v", q(n.Version), err)
	}
	return nil
}

// IsLabel reports whether s is a kebab-case label: fragments separated by '-', each all lower-case
// (a word) or all upper-case (an acronym) letters and digits, the first starting with a letter.
func IsLabel(s string) bool {
	if s == "" {
		return false
	}
	for i, frag := range strings.Split(s, "-") {
		if frag == "" {
			return false
		}
		if i == 0 && !(frag[0] >= 'a' && frag[0] <= 'z' || frag[0] >= 'A' && frag[0] <= 'Z') {
			return false
		}
		lower, upper := false, false
		for j := 0; j < len(frag); j++ {
			c := frag[j]
			switch {
			case c >= 'a' && c <= 'z':
				lower = true
			case c >= 'A' && c <= 'Z':
				upper = true
			case c >= '0' && c <= '9':
			default:
				return false
			}
		}
		if lower && upper {
			return false
		}
	}
	return true
}

// isWords reports whether s is lower-case kebab-case (the namespace and package grammar).
func isWords(s string) bool {
	return IsLabel(s) && strings.ToLower(s) == s
}

// isCanonVersion reports whether s is a canonical interface version ("1", "0.2", "0.0.3").
func isCanonVersion(s string) bool {
	nonzero := func(p string) bool {
		if p == "" || p[0] < '1' || p[0] > '9' {
			return false
		}
		return isDigits(p)
	}
	parts := strings.Split(s, ".")
	switch len(parts) {
	case 1:
		return nonzero(parts[0])
	case 2:
		return parts[0] == "0" && nonzero(parts[1])
	case 3:
		return parts[0] == "0" && parts[1] == "0" && (nonzero(parts[2]) || parts[2] == "0")
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Semver is a parsed Semantic Versioning 2.0 version.
type Semver struct {
	Major, Minor, Patch uint64
	Pre, Build          string
}

// String formats the version back.
func (v Semver) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// ParseSemver parses a version like "0.2.0" or "1.0.0-rc.1+build.5" following semver.org.
func ParseSemver(s string) (Semver, error) {
	var v Semver
	core, build, hasBuild := strings.Cut(s, "+")
	if hasBuild {
		if !validIdents(build, false) {
			return v, fmt.Errorf("invalid build metadata %s", q(build))
		}
		v.Build = build
	}
	core, pre, hasPre := strings.Cut(core, "-")
	if hasPre {
		if !validIdents(pre, true) {
			return v, fmt.Errorf("invalid pre-release %s", q(pre))
		}
		v.Pre = pre
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("%s is not MAJOR.MINOR.PATCH", q(core))
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		if !isDigits(p) || len(p) > 1 && p[0] == '0' {
			return v, fmt.Errorf("%s is not a version number", q(p))
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, fmt.Errorf("%s is not a version number", q(p))
		}
		*nums[i] = n
	}
	return v, nil
}

// validIdents checks dot-separated semver identifiers; numeric pre-release identifiers may not
// have leading zeros.
func validIdents(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for i := 0; i < len(id); i++ {
			c := id[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
				return false
			}
		}
		if pre && isDigits(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// uniqueKey canonicalises a name for the spec's strong uniqueness: acronyms lower-cased,
// "[method]l.l" and "[static]l.l" reduced to "l", other annotations except [constructor]
// stripped.
func uniqueKey(n Name) string {
	switch n.Kind {
	case NameMethod, NameStatic:
		r, m := strings.ToLower(n.Label), strings.ToLower(n.Member)
		if r == m {
			return r
		}
		return r + "." + m
	}
	return strings.ToLower(n.Raw)
}

// labelKey canonicalises a record field, case, flag, enum or parameter label for uniqueness.
func labelKey(s string) string { return strings.ToLower(s) }

// checkVersionSuffix validates a (versionsuffix "…") attribute against its interface name.
func checkVersionSuffix(n Name) error {
	if n.Kind != NameInterface || n.Version == "" || !isCanonVersion(n.Version) {
		return fmt.Errorf("versionsuffix %s needs an interface name with a canonical version", q(n.VersionSuffix))
	}
	if _, err := ParseSemver(n.Version + n.VersionSuffix); err != nil {
		return fmt.Errorf("version %s with suffix %s: %v", q(n.Version), q(n.VersionSuffix), err)
	}
	return nil
}
