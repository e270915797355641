package preview2

import (
	"net/http"

	"github.com/kobako/kobako/abi"
)

// fields is a wasi:http fields resource (headers or trailers): entries in the order they were
// added, names lower-case. Fields the host hands out (a request's or response's headers,
// trailers received) are immutable.
type fields struct {
	entries   []fieldEntry
	size      int // bytes of names and values
	immutable bool
}

// ResourceName is the WIT name of the resource type (headers and trailers are other names of
// it), for abi.Own and abi.Borrow.
func (*fields) ResourceName() string { return "fields" }

type headerResult = abi.Result[struct{}, headerError]

var (
	errInvalidSyntax = headerError{InvalidSyntax: true}
	errForbidden     = headerError{Forbidden: true}
	errImmutable     = headerError{Immutable: true}
)

// validFieldName reports whether n is an HTTP token (RFC 9110 §5.1, §5.6.2), of either case.
func validFieldName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !tokenChar(n[i]) {
			return false
		}
	}
	return true
}

func tokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// validFieldValue reports whether v may be sent as a field value: no control characters but
// horizontal tab (RFC 9110 §5.5), so no CR, LF or NUL can split a header, and no leading or
// trailing whitespace (which the wire form cannot carry).
func validFieldValue(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	if n := len(v); n > 0 && (v[0] == ' ' || v[0] == '\t' || v[n-1] == ' ' || v[n-1] == '\t') {
		return false
	}
	return true
}

// checkName validates a name the guest wants to change and returns it lower-case.
func (h *Host) checkFieldName(name string) (string, *headerError) {
	if !validFieldName(name) {
		return "", &errInvalidSyntax
	}
	n := lowerASCII(name)
	if h.http.forbidden(n) {
		return "", &errForbidden
	}
	return n, nil
}

// add appends name: value after checking it; the name is already checked and lower-case.
func (h *Host) addField(f *fields, name string, value []byte) *headerError {
	if !validFieldValue(value) {
		return &errInvalidSyntax
	}
	if f.size+len(name)+len(value) > h.http.maxFields {
		return &errInvalidSyntax
	}
	f.size += len(name) + len(value)
	f.entries = append(f.entries, fieldEntry{Name: name, Value: append([]byte(nil), value...)})
	return nil
}

func (f *fields) remove(name string) {
	out := f.entries[:0]
	for _, e := range f.entries {
		if e.Name == name {
			f.size -= len(e.Name) + len(e.Value)
			continue
		}
		out = append(out, e)
	}
	clear(f.entries[len(out):])
	f.entries = out
}

func (f *fields) clone(immutable bool) *fields {
	c := &fields{size: f.size, immutable: immutable, entries: make([]fieldEntry, len(f.entries))}
	copy(c.entries, f.entries) // values are never changed in place
	return c
}

// header converts f for net/http.
func (f *fields) header() http.Header {
	hd := make(http.Header, len(f.entries))
	for _, e := range f.entries {
		k := http.CanonicalHeaderKey(e.Name)
		hd[k] = append(hd[k], string(e.Value))
	}
	return hd
}

// fieldsFromHeader builds immutable fields from a net/http header, names lower-case, in
// sorted order (a Go header map has none of its own) with each name's values in order.
func fieldsFromHeader(hd http.Header) *fields {
	f := &fields{immutable: true}
	for _, k := range sortedKeys(hd) {
		n := lowerASCII(k)
		for _, v := range hd[k] {
			f.entries = append(f.entries, fieldEntry{Name: n, Value: []byte(v)})
			f.size += len(n) + len(v)
		}
	}
	return f
}

func (h *Host) fieldsFromList(list []fieldEntry) (abi.Result[abi.Own[*fields], headerError], error) {
	f := &fields{}
	for _, e := range list {
		n, herr := h.checkFieldName(e.Name)
		if herr == nil {
			herr = h.addField(f, n, e.Value)
		}
		if herr != nil {
			return abi.Err[abi.Own[*fields]](*herr), nil
		}
	}
	o, err := push(h, f)
	if err != nil {
		return abi.Result[abi.Own[*fields], headerError]{}, err
	}
	return abi.Ok[abi.Own[*fields], headerError](o), nil
}

func (h *Host) fieldsGet(self abi.Borrow[*fields], name string) ([][]byte, error) {
	f, err := borrowed(h, self)
	if err != nil {
		return nil, err
	}
	out := [][]byte{}
	if !validFieldName(name) {
		return out, nil
	}
	n := lowerASCII(name)
	for _, e := range f.entries {
		if e.Name == n {
			out = append(out, e.Value)
		}
	}
	return out, nil
}

func (h *Host) fieldsHas(self abi.Borrow[*fields], name string) (bool, error) {
	vs, err := h.fieldsGet(self, name)
	return len(vs) > 0, err
}

// fieldsChange runs change on the mutable fields self after checking name.
func (h *Host) fieldsChange(self abi.Borrow[*fields], name string, change func(f *fields, n string) *headerError) (headerResult, error) {
	f, err := borrowed(h, self)
	if err != nil {
		return headerResult{}, err
	}
	if f.immutable {
		return abi.Err[struct{}](errImmutable), nil
	}
	n, herr := h.checkFieldName(name)
	if herr == nil {
		herr = change(f, n)
	}
	if herr != nil {
		return abi.Err[struct{}](*herr), nil
	}
	return abi.Ok[struct{}, headerError](struct{}{}), nil
}

func (h *Host) fieldsSet(self abi.Borrow[*fields], name string, values [][]byte) (headerResult, error) {
	return h.fieldsChange(self, name, func(f *fields, n string) *headerError {
		for _, v := range values {
			if !validFieldValue(v) {
				return &errInvalidSyntax
			}
		}
		saved := f.clone(false)
		f.remove(n)
		for _, v := range values {
			if herr := h.addField(f, n, v); herr != nil {
				*f = *saved // all or nothing
				return herr
			}
		}
		return nil
	})
}

func (h *Host) fieldsDelete(self abi.Borrow[*fields], name string) (headerResult, error) {
	return h.fieldsChange(self, name, func(f *fields, n string) *headerError {
		f.remove(n)
		return nil
	})
}

func (h *Host) fieldsAppend(self abi.Borrow[*fields], name string, value []byte) (headerResult, error) {
	return h.fieldsChange(self, name, func(f *fields, n string) *headerError {
		return h.addField(f, n, value)
	})
}

func (h *Host) fieldsEntries(self abi.Borrow[*fields]) ([]fieldEntry, error) {
	f, err := borrowed(h, self)
	if err != nil {
		return nil, err
	}
	return append([]fieldEntry{}, f.entries...), nil
}

func (h *Host) fieldsClone(self abi.Borrow[*fields]) (abi.Own[*fields], error) {
	f, err := borrowed(h, self)
	if err != nil {
		return abi.Own[*fields]{}, err
	}
	return push(h, f.clone(false))
}
