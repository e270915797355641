package preview2

import (
	"context"

	"github.com/kobako/kobako/component"
)

const ifaceError = "wasi:io/error@0.2.0"

// ioError is a wasi:io/error resource: the cause of a stream's last-operation-failed.
type ioError struct{ err error }

func defineError(l *component.Linker) error {
	if _, err := l.DefineResource(ifaceError, "error", dtor[*ioError]()); err != nil {
		return err
	}
	return defineFunc(l, ifaceError, "[method]error.to-debug-string", func(_ context.Context, h *Host, self uint32) (string, error) {
		e, err := get[*ioError](h, self)
		if err != nil {
			return "", err
		}
		return e.err.Error(), nil
	})
}
