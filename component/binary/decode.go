package binary

import (
	"bytes"
)

// Section ids of the component binary format (Binary.md, "Component Definitions").
const (
	secCustom       = 0
	secCoreModule   = 1
	secCoreInstance = 2
	secCoreType     = 3
	secComponent    = 4
	secInstance     = 5
	secAlias        = 6
	secType         = 7
	secCanon        = 8
	secStart        = 9
	secImport       = 10
	secExport       = 11
	secValue        = 12
)

var sectionNames = [...]string{"custom", "core module", "core instance", "core type", "component",
	"instance", "alias", "type", "canon", "start", "import", "export", "value"}

// IsComponent reports whether b starts with the header of a component binary (as opposed to a
// core module or anything else).
func IsComponent(b []byte) bool {
	return len(b) >= 8 && bytes.Equal(b[:4], wasmMagic) && bytes.Equal(b[6:8], componentLayer[2:])
}

// Decode decodes and validates a component binary of the synchronous component model 0.2 as
// built by ordinary toolchains (wit-component, jco, componentize-js).
//
// It checks every index against its index space at the point of use, resolves and checks every
// type (including subtyping for instantiation arguments and export ascriptions), checks canon
// lift and lower against the flattened core signatures, and checks import and export names.
// Embedded core modules are kept as bytes; only the sections that give their imports and exports
// are read here, and package engine validates the rest when it compiles them.
//
// Every error is a *DecodeError wrapping ErrNotComponent, ErrMalformed, ErrInvalid,
// ErrUnsupported (for features outside the synchronous 0.2 component model: async, streams,
// futures, error-context, threads, value definitions, GC types, memory64) or ErrLimit. Decode
// never panics on bad input and allocates in proportion to its input.
func Decode(b []byte) (*Component, error) {
	d := &decoder{maxNodes: baseTypeNodes + int(float64(len(b))*typeNodesPerByte)}
	s, err := newScope(kindComponent, nil, d)
	if err != nil {
		return nil, at(0, err)
	}
	if err := d.component(b, 0, s, true); err != nil {
		return nil, err
	}
	return s.c, nil
}

// component decodes the component in b (whose first byte is at offset base) into s.
func (d *decoder) component(b []byte, base int, s *scope, top bool) error {
	r := newReader(b, base)
	if len(b) < 8 || !bytes.Equal(b[:4], wasmMagic) {
		if top {
			return at(base, errf(ErrNotComponent, "missing the \\0asm header"))
		}
		return at(base, errf(ErrMalformed, "nested component is missing the \\0asm header"))
	}
	if !bytes.Equal(b[6:8], componentLayer[2:]) {
		if top && bytes.Equal(b[4:8], coreVersion) {
			return at(base+4, errf(ErrNotComponent, "this is a core module, not a component"))
		}
		return at(base+4, errf(ErrMalformed, "unknown layer %02x %02x (a component has layer 01 00)", b[6], b[7]))
	}
	if !bytes.Equal(b[4:6], componentLayer[:2]) {
		return at(base+4, errf(ErrMalformed, "unknown component binary version 0x%02x%02x (kobako reads 0x000d, the version wit-component writes)", b[5], b[4]))
	}
	r.Pos = 8
	for !r.Done() {
		off := r.Offset()
		id, err := r.Byte()
		if err != nil {
			return err
		}
		size, err := r.U32()
		if err != nil {
			return err
		}
		payload, err := r.Bytes(uint64(size))
		if err != nil {
			return err
		}
		if id > secValue {
			return at(off, errf(ErrMalformed, "unknown section id %d", id))
		}
		pr := newReader(payload, r.Offset()-len(payload))
		if err := s.section(id, pr, off); err != nil {
			return within(sectionNames[id]+" section", err)
		}
	}
	return at(r.Offset(), s.finishComponent())
}

func (s *scope) section(id byte, r *reader, off int) error {
	var err error
	switch id {
	case secCustom:
		err = s.customSection(r, off)
	case secCoreModule:
		err = s.coreModuleSection(r, off)
	case secCoreInstance:
		err = s.vecSection(r, "core instance", 2, s.coreInstance1)
	case secCoreType:
		err = s.vecSection(r, "core type", 2, s.coreTypeDef)
	case secComponent:
		err = s.componentSection(r, off)
	case secInstance:
		err = s.vecSection(r, "instance", 2, s.instance1)
	case secAlias:
		err = s.vecSection(r, "alias", 3, s.alias1)
	case secType:
		err = s.vecSection(r, "type", 1, s.typeDef)
	case secCanon:
		err = s.vecSection(r, "canon", 1, s.canon1)
	case secStart:
		err = s.startSection(r, off)
	case secImport:
		err = s.vecSection(r, "import", 3, s.import1)
	case secExport:
		err = s.vecSection(r, "export", 4, s.export1)
	case secValue:
		err = at(off, unsupported("value definitions (🪙)"))
	}
	if err != nil {
		return err
	}
	if err := s.checkItems(); err != nil {
		return at(off, err)
	}
	return r.ExpectEnd("the section")
}

// checkItems applies MaxItems.
func (s *scope) checkItems() error {
	for _, n := range []struct {
		what  string
		count int
	}{{"core modules", len(s.c.CoreModules)}, {"core instances", len(s.c.CoreInstances)},
		{"components", len(s.c.Components)}, {"instances", len(s.c.Instances)}} {
		if n.count > MaxItems {
			return errf(ErrLimit, "more than %d %s", MaxItems, n.what)
		}
	}
	return nil
}

// vecSection reads a vector section, handing each element's reader position to one.
func (s *scope) vecSection(r *reader, what string, minSize int, one func(r *reader, off int) error) error {
	n, err := r.Count(what, max(minSize, 1), 0)
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		off := r.Offset()
		if err := one(r, off); err != nil {
			return at(off, err)
		}
		if err := s.checkItems(); err != nil {
			return at(off, err)
		}
	}
	return nil
}

// addDef records a definition in order.
func (s *scope) addDef(def Definition) { s.c.Definitions = append(s.c.Definitions, def) }
