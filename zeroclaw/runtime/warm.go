package runtime

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
)

// warm is the warm store shared by channels and memories: one instance behind a mutex, called
// one export at a time, each call its own frame with fresh fuel (the engine refills it for every
// top-level call). After an interrupted call the store is discarded; a channel re-creates it on
// its next call (recreate), a memory stays unavailable until Rebuild.
type warm struct {
	rt       *Runtime
	plugin   *zeroclaw.Plugin
	scope    instance.Scope
	pre      *component.InstancePre
	iface    string
	recreate bool
	inbound  *InboundQueue
	// setup runs after each instantiation, with mu held (configure, capabilities).
	setup func(ctx context.Context) error

	mu     sync.Mutex
	in     *component.ComponentInstance
	st     *instanceState
	funcs  map[string]*component.Func
	broken bool
	closed bool
}

// funcType returns the type of export name of the plugin's interface.
func (w *warm) funcType(ctx context.Context, name string) (*abi.FuncType, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := w.funcLocked(ctx, name)
	if err != nil {
		return nil, err
	}
	return f.Type(), nil
}

func (w *warm) funcLocked(ctx context.Context, name string) (*component.Func, error) {
	if err := w.readyLocked(ctx); err != nil {
		return nil, err
	}
	if f, ok := w.funcs[name]; ok {
		return f, nil
	}
	f, err := w.in.Func(w.iface + "#" + name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWorld, err)
	}
	w.funcs[name] = f
	return f, nil
}

// readyLocked makes sure there is a live instance.
func (w *warm) readyLocked(ctx context.Context) error {
	switch {
	case w.closed:
		return ErrClosed
	case w.in != nil:
		return nil
	case w.broken && !w.recreate:
		return ErrUnavailable
	}
	st := w.rt.newState(w.plugin, w.scope)
	st.inbound = w.inbound
	in, err := w.rt.instantiate(ctx, w.pre, st)
	if err != nil {
		return err
	}
	w.in, w.st, w.funcs, w.broken = in, st, map[string]*component.Func{}, false
	if w.setup != nil {
		if err := w.setup(ctx); err != nil {
			w.discardLocked(ctx)
			return err
		}
	}
	return nil
}

func (w *warm) discardLocked(ctx context.Context) {
	if w.in != nil {
		_ = w.in.Close(ctx)
	}
	w.in, w.st, w.funcs, w.broken = nil, nil, nil, true
}

// call invokes export name in a frame of its own.
func (w *warm) call(ctx context.Context, name string, authorised bool, args []abi.Value) ([]abi.Value, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.callLocked(ctx, name, authorised, args)
}

func (w *warm) callLocked(ctx context.Context, name string, authorised bool, args []abi.Value) ([]abi.Value, error) {
	f, err := w.funcLocked(ctx, name)
	if err != nil {
		return nil, err
	}
	w.st.begin(name, authorised, nil)
	res, err := f.Call(ctx, args...)
	w.st.end()
	if err != nil {
		err = w.rt.callError(shortIface(w.iface)+"."+name, err)
		if interrupted(err) {
			w.discardLocked(ctx)
		}
		return nil, err
	}
	return res, nil
}

// close discards the instance for good.
func (w *warm) close(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.in != nil {
		_ = w.in.Close(ctx)
	}
	w.in, w.closed = nil, true
	return nil
}

func shortIface(iface string) string {
	for i := len(iface) - 1; i >= 0; i-- {
		if iface[i] == '/' {
			return iface[i+1:]
		}
	}
	return iface
}

// toValues converts Go arguments to the export's parameter types.
func toValues(ft *abi.FuncType, args []any) ([]abi.Value, error) {
	params := ft.Params()
	if len(params) != len(args) {
		return nil, fmt.Errorf("%w: %d arguments for %d parameters", ErrWorld, len(args), len(params))
	}
	vals := make([]abi.Value, len(args))
	for i, a := range args {
		c, err := abi.NewCodec(reflect.TypeOf(a), params[i].Type)
		if err != nil {
			return nil, fmt.Errorf("%w: parameter %s: %v", ErrWorld, params[i].Name, err)
		}
		if vals[i], err = c.ToValue(a); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// fromValue converts a result to Go type R.
func fromValue[R any](ft *abi.FuncType, res []abi.Value) (R, error) {
	var out R
	rs := ft.Results()
	if len(rs) == 0 || len(res) == 0 {
		return out, nil
	}
	c, err := abi.NewCodec(reflect.TypeFor[R](), rs[0])
	if err != nil {
		return out, fmt.Errorf("%w: result: %v", ErrWorld, err)
	}
	err = c.FromValue(res[0], &out)
	return out, err
}

// toResult converts a Go value to the export's result value (for host defaults).
func toResult(ft *abi.FuncType, v any) ([]abi.Value, error) {
	rs := ft.Results()
	if len(rs) == 0 {
		return nil, nil
	}
	c, err := abi.NewCodec(reflect.TypeOf(v), rs[0])
	if err != nil {
		return nil, fmt.Errorf("%w: default result: %v", ErrWorld, err)
	}
	val, err := c.ToValue(v)
	if err != nil {
		return nil, err
	}
	return []abi.Value{val}, nil
}

// unitResult is the Go form of result<_, string>.
type unitResult = abi.Result[struct{}, string]

func resultErr[T any](r abi.Result[T, string]) (T, error) {
	if r.IsErr {
		var zero T
		return zero, fmt.Errorf("%w: %s", ErrPlugin, r.Err)
	}
	return r.Ok, nil
}
