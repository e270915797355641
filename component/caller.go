package component

import (
	"context"

	"github.com/kobako/kobako/engine"
)

// Caller is what a host function learns about the component instance that called it, as
// wazero's api.Module and wasmtime's StoreContextMut are: the instance and its store. Host state
// that belongs to one instance (a WASI host, a plugin's budget) is kept in the store under an
// engine.Key, so one Linker and one set of host functions serve every instance:
//
//	var stateKey = engine.NewKey[*State]()
//	l.Define("my:pkg/log", "write", func(ctx context.Context, c *component.Caller, args []abi.Value) ([]abi.Value, error) {
//		st, _ := stateKey.Get(c.Store())
//		…
//	})
//
// A Caller is valid only during the call it was passed to.
type Caller struct {
	in *Instance
}

// Instance returns the calling component instance.
func (c *Caller) Instance() *Instance { return c.in }

// Store returns the engine store of the calling instance, where per-instance host state lives.
func (c *Caller) Store() *engine.Store { return c.in.store }

// HostDtor is the destructor of a host resource type: it runs when the guest drops its last
// owning handle (resource.drop of an own handle), with the calling instance and the rep.
type HostDtor func(ctx context.Context, c *Caller, rep uint32) error
