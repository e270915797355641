package binary

import "github.com/kobako/kobako/internal/binread"

// reader reads the binary format from a byte slice (internal/binread, shared with the core
// module decoder); its errors are DecodeErrors wrapping ErrMalformed at an absolute offset.
type reader = binread.Reader

func newReader(b []byte, base int) *reader { return binread.New(b, base, malformed) }

// malformed is the reader's malformed-input error at offset off.
func malformed(off int, err error) error { return at(off, errf(ErrMalformed, "%v", err)) }
