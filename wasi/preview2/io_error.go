package preview2

import (
	"context"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

const ifaceError = "wasi:io/error@0.2.0"

// ioError is a wasi:io/error resource: the cause of a stream's last-operation-failed.
type ioError struct{ err error }

// ResourceName is the WIT name of the resource type, for abi.Own and abi.Borrow.
func (*ioError) ResourceName() string { return "error" }

func defineError(l *component.Linker) error {
	if _, err := l.DefineResource(ifaceError, "error", dtor[*ioError]()); err != nil {
		return err
	}
	return defineFunc(l, ifaceError, "[method]error.to-debug-string", func(_ context.Context, h *Host, self abi.Borrow[*ioError]) (string, error) {
		e, err := borrowed(h, self)
		if err != nil {
			return "", err
		}
		return e.err.Error(), nil
	})
}
