package runner

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
)

// warm is the warm store shared by channels and memories: one instance behind a mutex, called
// one export at a time, each call its own frame with fresh fuel (the engine refills it for every
// top-level call). After an interrupted call the store is discarded; a channel re-creates it on
// its next call (recreate), a memory stays unavailable until Rebuild.
type warm struct {
	rt       *Runner
	plugin   *zeroclaw.Plugin
	scope    instance.Scope
	pre      *component.InstancePre
	iface    string
	recreate bool
	inbound  *InboundQueue
	// setup runs after each instantiation, with mu held (configure, capabilities).
	setup func(ctx context.Context) error

	// codecMu guards codecs, the conversions of Invoke's host-side answers (dynCodec); apart
	// from mu, which a call holds throughout.
	codecMu sync.Mutex
	codecs  map[codecKey]*abi.Codec

	mu sync.Mutex
	in *component.Instance
	st *instanceState
	// funcs are the dynamic functions of the live instance that Invoke called.
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
		if names := w.funcNames(); len(names) > 0 && !slices.Contains(names, name) {
			// A typo of the caller's, not a plugin that fails its world: say what there is.
			return nil, fmt.Errorf("%w %s; the plugin's functions are: %s", ErrNoFunction, name, strings.Join(names, ", "))
		}
		return nil, fmt.Errorf("%w: %v", ErrWorld, err)
	}
	w.funcs[name] = f
	return f, nil
}

// funcNames lists the functions the component's export of the plugin's interface declares.
func (w *warm) funcNames() []string {
	var names []string
	for _, e := range w.pre.Component().Decoded().Type.Exports {
		n := e.Name
		if n.Kind != binary.NameInterface || n.Namespace+":"+n.Package+"/"+n.Interface != w.iface || e.Type.Instance == nil {
			continue
		}
		for _, d := range e.Type.Instance.Exports {
			if d.Type.Sort == binary.SortFunc {
				names = append(names, d.Name.Raw)
			}
		}
	}
	return names
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

// call invokes export name with dynamic values, in a frame of its own: the path of Invoke,
// whose callers (the CLI shell) hold WAVE text, not Go values.
func (w *warm) call(ctx context.Context, name string, authorised bool, args []abi.Value) ([]abi.Value, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := w.funcLocked(ctx, name)
	if err != nil {
		return nil, err
	}
	w.enterLocked(name, authorised)
	res, err := f.Call(ctx, args...)
	return res, w.leaveLocked(ctx, name, err)
}

// warmCall calls export name through its prepared binding f, in a frame of its own.
func warmCall[R any](ctx context.Context, w *warm, name string, authorised bool, f func(context.Context, *component.Instance) (R, error)) (R, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return warmCallLocked(ctx, w, name, authorised, f)
}

// warmCallLocked is warmCall with mu held (the setup after each instantiation).
func warmCallLocked[R any](ctx context.Context, w *warm, name string, authorised bool, f func(context.Context, *component.Instance) (R, error)) (R, error) {
	if err := w.readyLocked(ctx); err != nil {
		var zero R
		return zero, err
	}
	w.enterLocked(name, authorised)
	r, err := f(ctx, w.in)
	return r, w.leaveLocked(ctx, name, err)
}

// enterLocked opens the frame of a call of export name on the live instance.
func (w *warm) enterLocked(name string, authorised bool) {
	w.st.stderr.reset()
	w.st.begin(name, authorised, nil)
}

// leaveLocked closes the frame and turns the call's error into the reference's; an interrupted
// call discards the store.
func (w *warm) leaveLocked(ctx context.Context, name string, err error) error {
	w.st.end()
	if err == nil {
		return nil
	}
	err = w.rt.callError(shortIface(w.iface)+"."+name, w.st, err)
	if interrupted(err) {
		w.discardLocked(ctx)
	}
	return err
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

// dynCodec converts between the Go form of Invoke's host-side answers (a default, a cached
// value, a composed call) and the dynamic values of WIT type t. The codecs are kept with the warm
// store, by function and Go type: abi's own cache is keyed by the printed type, which each lookup
// would print again. A re-created instance has type objects of its own but the same structure,
// so the codecs made for the first one serve it.
func (w *warm) dynCodec(name string, gt reflect.Type, t abi.Type) (*abi.Codec, error) {
	w.codecMu.Lock()
	defer w.codecMu.Unlock()
	k := codecKey{name, gt}
	if c, ok := w.codecs[k]; ok {
		return c, nil
	}
	c, err := abi.NewCodec(gt, t)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrWorld, name, err)
	}
	if w.codecs == nil {
		w.codecs = map[codecKey]*abi.Codec{}
	}
	w.codecs[k] = c
	return c, nil
}

type codecKey struct {
	name string
	t    reflect.Type
}

// answer is the result values of function name, of type ft, answered by the host with v.
func (w *warm) answer(name string, ft *abi.FuncType, v any) ([]abi.Value, error) {
	rs := ft.Results()
	if len(rs) == 0 {
		return nil, nil
	}
	c, err := w.dynCodec(name, reflect.TypeOf(v), rs[0])
	if err != nil {
		return nil, err
	}
	val, err := c.ToValue(v)
	if err != nil {
		return nil, err
	}
	return []abi.Value{val}, nil
}

// decodeArgs converts Invoke's dynamic arguments of function name, of type ft, into the Go
// variables dst points to.
func (w *warm) decodeArgs(name string, ft *abi.FuncType, args []abi.Value, dst ...any) error {
	params := ft.Params()
	if len(args) != len(params) || len(dst) != len(params) {
		return fmt.Errorf("%w: %d arguments for %d parameters", ErrWorld, len(args), len(params))
	}
	for i, d := range dst {
		c, err := w.dynCodec(name+"/"+params[i].Name, reflect.TypeOf(d).Elem(), params[i].Type)
		if err != nil {
			return err
		}
		if err := c.FromValue(args[i], d); err != nil {
			return err
		}
	}
	return nil
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

// ready makes sure there is a live instance.
func (w *warm) ready(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.readyLocked(ctx)
}
