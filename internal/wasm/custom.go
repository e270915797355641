package wasm

// This file decodes custom sections, including the function names of the "name" section.

func (d *decoder) customSection(r *reader) error {
	if uint32(len(d.m.CustomSections)) >= d.lim.CustomSections {
		return limitErr(r.offset(), "custom sections", uint64(len(d.m.CustomSections))+1, uint64(d.lim.CustomSections))
	}
	name, err := r.name()
	if err != nil {
		return err
	}
	data := r.buf[r.pos:len(r.buf):len(r.buf)]
	d.m.CustomSections = append(d.m.CustomSections, CustomSection{Name: name, Data: data})
	if name == "name" {
		d.nameSection(newReader(data, r.offset()))
	}
	r.pos = len(r.buf)
	return nil
}

// Name section subsection ids.
const (
	nameModule    = 0
	nameFunctions = 1
	nameLocals    = 2 // indirect map: function index, then local index
	nameLabels    = 3 // indirect map: function index, then label index
	nameGlobals   = 7
)

// nameSection reads the module name and function names. The name section is advisory, so a
// malformed one is ignored from the point where it goes wrong rather than rejected.
func (d *decoder) nameSection(r *reader) {
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return
		}
		size, err := r.u32()
		if err != nil || uint64(size) > uint64(r.remaining()) {
			return
		}
		sub, _ := r.bytes(int(size))
		sr := newReader(sub, 0)
		switch id {
		case nameModule:
			if n, err := sr.name(); err == nil {
				d.m.ModuleName = n
			}
		case nameFunctions:
			n, err := sr.count("function names", 2, 0)
			if err != nil {
				continue
			}
			if d.m.funcNames == nil {
				d.m.funcNames = make(map[uint32]string, min(n, d.numFuncsSoFar()))
			}
			for i := uint32(0); i < n; i++ {
				idx, err := sr.u32()
				if err != nil {
					break
				}
				name, err := sr.name()
				if err != nil {
					break
				}
				// Only names of functions that exist are kept, which bounds the map by the
				// function limit however long the section is.
				if idx < d.numFuncsSoFar() {
					d.m.funcNames[idx] = name
				}
			}
		}
	}
}
