package wasm

// This file decodes custom sections, including the function names of the "name" section.

func (d *decoder) customSection(r *reader) error {
	if uint32(len(d.m.CustomSections)) >= d.lim.CustomSections {
		return limitErr(r.Offset(), "custom sections", uint64(len(d.m.CustomSections))+1, uint64(d.lim.CustomSections))
	}
	name, err := r.Name()
	if err != nil {
		return err
	}
	data := r.Buf[r.Pos:len(r.Buf):len(r.Buf)]
	d.m.CustomSections = append(d.m.CustomSections, CustomSection{Name: name, Data: data})
	if name == "name" {
		d.nameSection(newReader(data, r.Offset()))
	}
	r.Pos = len(r.Buf)
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
	for !r.Done() {
		id, err := r.Byte()
		if err != nil {
			return
		}
		size, err := r.U32()
		if err != nil || uint64(size) > uint64(r.Remaining()) {
			return
		}
		sub, _ := r.Bytes(uint64(size))
		sr := newReader(sub, 0)
		switch id {
		case nameModule:
			if n, err := sr.Name(); err == nil {
				d.m.ModuleName = n
			}
		case nameFunctions:
			n, err := sr.Count("function names", 2, 0)
			if err != nil {
				continue
			}
			if d.m.funcNames == nil {
				d.m.funcNames = make(map[uint32]string, min(n, d.numFuncsSoFar()))
			}
			for i := uint32(0); i < n; i++ {
				idx, err := sr.U32()
				if err != nil {
					break
				}
				name, err := sr.Name()
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
