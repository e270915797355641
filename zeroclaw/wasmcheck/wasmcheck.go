// Package wasmcheck tells, without running anything, whether a file is a WebAssembly component
// that exports what a ZeroClaw plugin's capabilities promise. It reads the 8-byte component header
// and the component's own export sections, nothing else: no validation, no compilation, no
// wazero, so the packaging layer (install, discovery) can refuse a wrong file early and cheaply.
//
// The binary format is the component model's (Binary.md): a preamble, then sections of
// id:byte size:u32 (LEB128) contents; the export section (id 11) is a vector of
// exportname' sortidx externdesc?.
package wasmcheck

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kobako/kobako/internal/binread"
)

var (
	// ErrNotComponent: the bytes are not a WebAssembly component (a core module, another layer,
	// or not WebAssembly at all).
	ErrNotComponent = errors.New("not a WebAssembly component")
	// ErrMalformed: the component's sections or export section cannot be read.
	ErrMalformed = errors.New("malformed component")
	// ErrMissingExport: the component lacks an export its plugin world requires.
	ErrMissingExport = errors.New("component lacks a required export")
)

// Header is the preamble of a component: magic, version 0x0d, layer 1.
var Header = []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}

var coreHeader = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// Limits on what Exports reads, so a hostile file costs little.
const (
	MaxExports    = 10000
	MaxNameLength = 4096
)

// sectionExport is the component export section's id.
const sectionExport = 11

// Export is one top-level export of a component.
type Export struct {
	Name string
	// Sort is "func", "value", "type", "component", "instance" or "core module" (and the other
	// core sorts).
	Sort string
}

// Exports reads the top-level exports of the component b, in order.
func Exports(b []byte) ([]Export, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], Header[:4]) {
		return nil, fmt.Errorf("%w: no WebAssembly header (the file does not start with \\0asm)", ErrNotComponent)
	}
	if bytes.Equal(b[:8], coreHeader) {
		return nil, fmt.Errorf("%w: it is a core module (version 1); a plugin is a component built for wasm32-wasip2", ErrNotComponent)
	}
	if !bytes.Equal(b[:8], Header) {
		return nil, fmt.Errorf("%w: unknown WebAssembly version/layer % x (a component starts with % x)", ErrNotComponent, b[4:8], Header)
	}
	r := newReader(b, 8)
	var out []Export
	for r.Pos < len(r.Buf) {
		start := r.Pos
		id, err := r.Byte()
		if err != nil {
			return nil, err
		}
		size, err := r.U32()
		if err != nil {
			return nil, err
		}
		if uint64(size) > uint64(len(r.Buf)-r.Pos) {
			return nil, fmt.Errorf("%w: section %d at offset %d claims %d bytes, %d remain", ErrMalformed, id, start, size, len(r.Buf)-r.Pos)
		}
		end := r.Pos + int(size)
		if id == sectionExport {
			sec := newReader(r.Buf[:end], r.Pos)
			exps, err := sec.exports(MaxExports - len(out))
			if err != nil {
				return nil, err
			}
			if sec.Pos != end {
				return nil, fmt.Errorf("%w: export section at offset %d has %d bytes after its exports", ErrMalformed, start, end-sec.Pos)
			}
			out = append(out, exps...)
		}
		r.Pos = end
	}
	return out, nil
}

// Require checks that the component b exports every instance name in want, and reports the
// missing ones by name together with what it does export.
func Require(b []byte, want []string) error {
	exps, err := Exports(b)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	var names []string
	for _, e := range exps {
		if e.Sort == "instance" {
			have[e.Name] = true
		}
		names = append(names, e.Name)
	}
	var missing []string
	for _, w := range want {
		if !have[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(names)
	got := "nothing"
	if len(names) > 0 {
		got = strings.Join(names, ", ")
	}
	return fmt.Errorf("%w: it does not export %s (it exports %s)", ErrMissingExport, strings.Join(missing, ", "), got)
}

// reader reads the component binary's primitives with internal/binread, the decoders' own
// reader; what wasmcheck adds is the few component structures it walks.
type reader struct{ binread.Reader }

func newReader(b []byte, off int) *reader {
	return &reader{binread.Reader{Buf: b, Pos: off, Malformed: func(at int, err error) error {
		return fmt.Errorf("%w: %v at offset %d", ErrMalformed, err, at)
	}}}
}

// skipS33 skips a signed LEB128 of at most 5 bytes (a valtype or type index).
func (r *reader) skipS33() error {
	_, err := r.Signed(33)
	return err
}

// name reads a name of at most MaxNameLength bytes.
func (r *reader) name() (string, error) {
	start := r.Pos
	n, err := r.U32()
	if err != nil {
		return "", err
	}
	if n > MaxNameLength {
		return "", fmt.Errorf("%w: a name at offset %d is %d bytes long, more than %d", ErrMalformed, r.Pos, n, MaxNameLength)
	}
	r.Pos = start
	return r.Name()
}

var sorts = map[byte]string{0x01: "func", 0x02: "value", 0x03: "type", 0x04: "component", 0x05: "instance"}
var coreSorts = map[byte]string{0x00: "core func", 0x01: "core table", 0x02: "core memory", 0x03: "core global", 0x10: "core type", 0x11: "core module", 0x12: "core instance"}

func (r *reader) sort() (string, error) {
	at := r.Pos
	c, err := r.Byte()
	if err != nil {
		return "", err
	}
	if c == 0x00 {
		cs, err := r.Byte()
		if err != nil {
			return "", err
		}
		if s, ok := coreSorts[cs]; ok {
			return s, nil
		}
		return "", fmt.Errorf("%w: unknown core sort 0x%02x at offset %d", ErrMalformed, cs, at+1)
	}
	if s, ok := sorts[c]; ok {
		return s, nil
	}
	return "", fmt.Errorf("%w: unknown sort 0x%02x at offset %d", ErrMalformed, c, at)
}

// exports reads an export section's contents: at most max exports.
func (r *reader) exports(max int) ([]Export, error) {
	at := r.Pos
	n, err := r.U32()
	if err != nil {
		return nil, err
	}
	if int64(n) > int64(max) {
		return nil, fmt.Errorf("%w: export section at offset %d declares %d exports, more than %d", ErrMalformed, at, n, MaxExports)
	}
	// Each export takes at least 4 bytes, so a count beyond that is a lie told to make us allocate.
	if int(n) > (len(r.Buf)-r.Pos)/4 {
		return nil, fmt.Errorf("%w: export section at offset %d declares %d exports in %d bytes", ErrMalformed, at, n, len(r.Buf)-r.Pos)
	}
	out := make([]Export, 0, n)
	for i := uint32(0); i < n; i++ {
		// exportname' ::= 0x00 name | 0x01 name (a name with a version suffix, older encoders)
		kind, err := r.Byte()
		if err != nil {
			return nil, err
		}
		if kind != 0x00 && kind != 0x01 {
			return nil, fmt.Errorf("%w: export %d at offset %d: unknown name kind 0x%02x", ErrMalformed, i, r.Pos-1, kind)
		}
		name, err := r.name()
		if err != nil {
			return nil, err
		}
		s, err := r.sort()
		if err != nil {
			return nil, err
		}
		if _, err := r.U32(); err != nil { // the sort's index
			return nil, err
		}
		if err := r.optExternDesc(); err != nil {
			return nil, fmt.Errorf("export %q: %w", name, err)
		}
		out = append(out, Export{Name: name, Sort: s})
	}
	return out, nil
}

// optExternDesc skips externdesc? ::= 0x00 | 0x01 externdesc.
func (r *reader) optExternDesc() error {
	at := r.Pos
	c, err := r.Byte()
	if err != nil {
		return err
	}
	switch c {
	case 0x00:
		return nil
	case 0x01:
	default:
		return fmt.Errorf("%w: unknown optional type marker 0x%02x at offset %d", ErrMalformed, c, at)
	}
	at = r.Pos
	k, err := r.Byte()
	if err != nil {
		return err
	}
	switch k {
	case 0x00: // core module: 0x11 typeidx
		if c, err := r.Byte(); err != nil {
			return err
		} else if c != 0x11 {
			return fmt.Errorf("%w: core extern type 0x%02x at offset %d", ErrMalformed, c, at+1)
		}
		_, err = r.U32()
		return err
	case 0x01, 0x04, 0x05: // func, component, instance: typeidx
		_, err = r.U32()
		return err
	case 0x02: // value: 0x00 valueidx | 0x01 valtype
		b, err := r.Byte()
		if err != nil {
			return err
		}
		switch b {
		case 0x00:
			_, err = r.U32()
			return err
		case 0x01:
			return r.skipS33()
		}
		return fmt.Errorf("%w: value bound 0x%02x at offset %d", ErrMalformed, b, r.Pos-1)
	case 0x03: // type: 0x00 typeidx (eq) | 0x01 (sub resource)
		b, err := r.Byte()
		if err != nil {
			return err
		}
		switch b {
		case 0x00:
			_, err = r.U32()
			return err
		case 0x01:
			return nil
		}
		return fmt.Errorf("%w: type bound 0x%02x at offset %d", ErrMalformed, b, r.Pos-1)
	}
	return fmt.Errorf("%w: unknown extern kind 0x%02x at offset %d", ErrMalformed, k, at)
}
