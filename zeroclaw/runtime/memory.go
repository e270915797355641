package runtime

import (
	"context"
	"fmt"
	"reflect"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// notSupported is the error the host answers an unset purge flag with.
const notSupported = "not supported"

// Memory is a memory plugin (world memory-plugin) in a warm store. It has no config, no secrets
// and never wasi:http. After an interrupted call it answers ErrUnavailable ("plugin instance is
// unavailable: a previous call was interrupted before completion") until Rebuild. Safe for
// concurrent use; calls are serialised.
type Memory struct {
	w    *warm
	name string
	caps MemoryCapabilities
}

// Memory builds memory plugin name (binding = the package name) and calls
// get-memory-capabilities once.
func (r *Runtime) Memory(ctx context.Context, name string) (*Memory, error) {
	p, err := r.plugin(name, manifest.CapabilityMemory)
	if err != nil {
		return nil, err
	}
	scope, err := p.DefaultScope(manifest.CapabilityMemory)
	if err != nil {
		return nil, err
	}
	return r.MemoryWithScope(ctx, p, scope)
}

// MemoryWithScope builds a memory plugin under a host-chosen scope.
func (r *Runtime) MemoryWithScope(ctx context.Context, p *zeroclaw.Plugin, scope instance.Scope) (*Memory, error) {
	if err := scope.RequireCapability(manifest.CapabilityMemory); err != nil {
		return nil, err
	}
	pre, err := r.load(ctx, p, scope)
	if err != nil {
		return nil, err
	}
	m := &Memory{}
	m.w = &warm{rt: r, plugin: p, scope: scope, pre: pre, iface: ifaceMemory, setup: m.setup}
	if err := m.Rebuild(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Memory) setup(ctx context.Context) error {
	var err error
	if m.name, err = metaCall[string](ctx, m.w, "name"); err != nil {
		return err
	}
	m.caps, err = metaCall[MemoryCapabilities](ctx, m.w, "get-memory-capabilities")
	return err
}

// Rebuild replaces the instance with a fresh one (after an interruption, or to reset state).
func (m *Memory) Rebuild(ctx context.Context) error {
	w := m.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.in != nil {
		_ = w.in.Close(ctx)
		w.in = nil
	}
	w.broken, w.recreate = false, true
	defer func() { w.recreate = false }()
	return w.readyLocked(ctx)
}

// Name is the memory's name as the guest reported it.
func (m *Memory) Name() string { return m.name }

// Capabilities is the flag set get-memory-capabilities returned.
func (m *Memory) Capabilities() MemoryCapabilities { return m.caps }

// Close discards the instance.
func (m *Memory) Close(ctx context.Context) error { return m.w.close(ctx) }

// FuncType returns the WIT type of a memory function, for dynamic callers.
func (m *Memory) FuncType(ctx context.Context, name string) (*abi.FuncType, error) {
	return m.w.funcType(ctx, name)
}

var memoryGated = map[string]MemoryCapabilities{
	"get-for-agent": MemoryGetForAgent, "purge-namespace": MemoryPurgeNamespace,
	"purge-session": MemoryPurgeSession, "purge-session-for-agent": MemoryPurgeSessionForAgent,
	"purge-agent": MemoryPurgeAgent, "reindex": MemoryReindex, "store-procedural": MemoryStoreProcedural,
	"ensure-agent-uuid": MemoryEnsureAgentUUID, "recall-namespaced": MemoryRecallNamespaced,
	"export-entries": MemoryExportEntries, "store-with-metadata": MemoryStoreWithMetadata,
}

// Invoke calls memory function name with dynamic values. A capability-gated function whose
// flag is unset is answered by the host as memory.wit documents, composing required functions
// where it says so, without entering the guest for the gated one.
func (m *Memory) Invoke(ctx context.Context, name string, args []abi.Value) ([]abi.Value, error) {
	ft, err := m.w.funcType(ctx, name)
	if err != nil {
		return nil, err
	}
	switch name {
	case "name":
		return toResult(ft, m.name)
	case "get-memory-capabilities":
		return toResult(ft, m.caps)
	}
	if flag, ok := memoryGated[name]; ok && !m.caps.Has(flag) {
		v, err := m.hostDefault(ctx, name, ft, args)
		if err != nil {
			return nil, err
		}
		return toResult(ft, v)
	}
	return m.w.call(ctx, name, true, args)
}

type entriesResult = abi.Result[[]MemoryEntry, string]

// hostDefault answers an unset flag (memory.wit, next to flags memory-capabilities).
func (m *Memory) hostDefault(ctx context.Context, name string, ft *abi.FuncType, args []abi.Value) (any, error) {
	switch name {
	case "purge-namespace", "purge-session", "purge-session-for-agent", "purge-agent":
		return abi.Err[uint64](notSupported), nil
	case "reindex":
		return abi.Ok[uint64, string](0), nil
	case "store-procedural":
		return unitResult{}, nil
	case "ensure-agent-uuid":
		var alias string
		if err := decodeArgs(ft, args, &alias); err != nil {
			return nil, err
		}
		return abi.Ok[string, string](alias), nil
	case "get-for-agent":
		var key, agent string
		if err := decodeArgs(ft, args, &key, &agent); err != nil {
			return nil, err
		}
		r, err := memoryCall[abi.Result[*MemoryEntry, string]](ctx, m, "get", key)
		if err != nil || r.IsErr {
			return r, err
		}
		if r.Ok != nil && (r.Ok.AgentID == nil || *r.Ok.AgentID != agent) {
			r.Ok = nil
		}
		return r, nil
	case "recall-namespaced":
		var ns, query string
		var limit uint64
		var session, since, until *string
		if err := decodeArgs(ft, args, &ns, &query, &limit, &session, &since, &until); err != nil {
			return nil, err
		}
		r, err := memoryCall[entriesResult](ctx, m, "recall", query, limit, session, since, until)
		if err != nil || r.IsErr {
			return r, err
		}
		r.Ok = filterEntries(r.Ok, func(e MemoryEntry) bool { return e.Namespace == ns })
		return r, nil
	case "export-entries":
		var f ExportFilter
		if err := decodeArgs(ft, args, &f); err != nil {
			return nil, err
		}
		r, err := memoryCall[entriesResult](ctx, m, "list-entries", f.Category, f.SessionID)
		if err != nil || r.IsErr {
			return r, err
		}
		r.Ok = filterEntries(r.Ok, func(e MemoryEntry) bool {
			return (f.Namespace == nil || e.Namespace == *f.Namespace) &&
				(f.Since == nil || e.Timestamp >= *f.Since) && (f.Until == nil || e.Timestamp <= *f.Until)
		})
		return r, nil
	case "store-with-metadata":
		var key, content string
		var cat MemoryCategory
		var session, ns *string
		var importance *float64
		if err := decodeArgs(ft, args, &key, &content, &cat, &session, &ns, &importance); err != nil {
			return nil, err
		}
		return memoryCall[unitResult](ctx, m, "store-entry", key, content, cat, session)
	}
	return nil, fmt.Errorf("BUG: no host default for %s", name)
}

func filterEntries(es []MemoryEntry, keep func(MemoryEntry) bool) []MemoryEntry {
	out := []MemoryEntry{}
	for _, e := range es {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// decodeArgs converts dynamic arguments into Go variables.
func decodeArgs(ft *abi.FuncType, args []abi.Value, dst ...any) error {
	params := ft.Params()
	if len(args) != len(params) || len(dst) != len(params) {
		return fmt.Errorf("%w: %d arguments for %d parameters", ErrWorld, len(args), len(params))
	}
	for i, d := range dst {
		c, err := abi.NewCodec(reflect.TypeOf(d).Elem(), params[i].Type)
		if err != nil {
			return fmt.Errorf("%w: parameter %s: %v", ErrWorld, params[i].Name, err)
		}
		if err := c.FromValue(args[i], d); err != nil {
			return err
		}
	}
	return nil
}

// memoryCall is the typed path over Invoke.
func memoryCall[R any](ctx context.Context, m *Memory, name string, args ...any) (R, error) {
	var zero R
	ft, err := m.w.funcType(ctx, name)
	if err != nil {
		return zero, err
	}
	vals, err := toValues(ft, args)
	if err != nil {
		return zero, err
	}
	res, err := m.Invoke(ctx, name, vals)
	if err != nil {
		return zero, err
	}
	return fromValue[R](ft, res)
}

func entries(r entriesResult, err error) ([]MemoryEntry, error) {
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

func u64(r abi.Result[uint64, string], err error) (uint64, error) {
	if err != nil {
		return 0, err
	}
	return resultErr(r)
}

// Store stores an entry (store-entry).
func (m *Memory) Store(ctx context.Context, key, content string, category MemoryCategory, sessionID *string) error {
	return unit(memoryCall[unitResult](ctx, m, "store-entry", key, content, category, sessionID))
}

// Recall finds up to limit entries matching query.
func (m *Memory) Recall(ctx context.Context, query string, limit uint64, sessionID, since, until *string) ([]MemoryEntry, error) {
	return entries(memoryCall[entriesResult](ctx, m, "recall", query, limit, sessionID, since, until))
}

// Get returns the entry stored under key, or nil.
func (m *Memory) Get(ctx context.Context, key string) (*MemoryEntry, error) {
	r, err := memoryCall[abi.Result[*MemoryEntry, string]](ctx, m, "get", key)
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// List lists entries, optionally by category and session.
func (m *Memory) List(ctx context.Context, category *MemoryCategory, sessionID *string) ([]MemoryEntry, error) {
	return entries(memoryCall[entriesResult](ctx, m, "list-entries", category, sessionID))
}

// Forget removes key and reports whether it existed.
func (m *Memory) Forget(ctx context.Context, key string) (bool, error) {
	r, err := memoryCall[abi.Result[bool, string]](ctx, m, "forget", key)
	if err != nil {
		return false, err
	}
	return resultErr(r)
}

// ForgetForAgent removes key if agentID owns it.
func (m *Memory) ForgetForAgent(ctx context.Context, key, agentID string) (bool, error) {
	r, err := memoryCall[abi.Result[bool, string]](ctx, m, "forget-for-agent", key, agentID)
	if err != nil {
		return false, err
	}
	return resultErr(r)
}

// Count is the number of entries.
func (m *Memory) Count(ctx context.Context) (uint64, error) {
	return u64(memoryCall[abi.Result[uint64, string]](ctx, m, "count"))
}

// HealthCheck reports the backend's health.
func (m *Memory) HealthCheck(ctx context.Context) bool {
	ok, err := memoryCall[bool](ctx, m, "health-check")
	return err == nil && ok
}

// StoreWithAgent stores an entry with namespace, importance and agent.
func (m *Memory) StoreWithAgent(ctx context.Context, key, content string, category MemoryCategory, sessionID, namespace *string, importance *float64, agentID *string) error {
	return unit(memoryCall[unitResult](ctx, m, "store-with-agent", key, content, category, sessionID, namespace, importance, agentID))
}

// RecallForAgents recalls entries of the agents the filter selects.
func (m *Memory) RecallForAgents(ctx context.Context, agents AgentFilter, query string, limit uint64, sessionID, since, until *string) ([]MemoryEntry, error) {
	return entries(memoryCall[entriesResult](ctx, m, "recall-for-agents", agents, query, limit, sessionID, since, until))
}

// GetForAgent returns key's entry if agentID owns it.
func (m *Memory) GetForAgent(ctx context.Context, key, agentID string) (*MemoryEntry, error) {
	r, err := memoryCall[abi.Result[*MemoryEntry, string]](ctx, m, "get-for-agent", key, agentID)
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// PurgeNamespace removes a namespace's entries.
func (m *Memory) PurgeNamespace(ctx context.Context, namespace string) (uint64, error) {
	return u64(memoryCall[abi.Result[uint64, string]](ctx, m, "purge-namespace", namespace))
}

// PurgeSession removes a session's entries.
func (m *Memory) PurgeSession(ctx context.Context, sessionID string) (uint64, error) {
	return u64(memoryCall[abi.Result[uint64, string]](ctx, m, "purge-session", sessionID))
}

// PurgeSessionForAgent removes an agent's entries of a session.
func (m *Memory) PurgeSessionForAgent(ctx context.Context, sessionID, agentID string) (uint64, error) {
	return u64(memoryCall[abi.Result[uint64, string]](ctx, m, "purge-session-for-agent", sessionID, agentID))
}

// PurgeAgent removes an agent's entries.
func (m *Memory) PurgeAgent(ctx context.Context, agentAlias string) (uint64, error) {
	return u64(memoryCall[abi.Result[uint64, string]](ctx, m, "purge-agent", agentAlias))
}

// Reindex rebuilds the backend's index.
func (m *Memory) Reindex(ctx context.Context) (uint64, error) {
	return u64(memoryCall[abi.Result[uint64, string]](ctx, m, "reindex"))
}

// StoreProcedural stores procedural messages.
func (m *Memory) StoreProcedural(ctx context.Context, messages []ProceduralMessage, sessionID *string) error {
	return unit(memoryCall[unitResult](ctx, m, "store-procedural", messages, sessionID))
}

// EnsureAgentUUID maps an agent alias to its id.
func (m *Memory) EnsureAgentUUID(ctx context.Context, alias string) (string, error) {
	r, err := memoryCall[abi.Result[string, string]](ctx, m, "ensure-agent-uuid", alias)
	if err != nil {
		return "", err
	}
	return resultErr(r)
}

// RecallNamespaced recalls within a namespace.
func (m *Memory) RecallNamespaced(ctx context.Context, namespace, query string, limit uint64, sessionID, since, until *string) ([]MemoryEntry, error) {
	return entries(memoryCall[entriesResult](ctx, m, "recall-namespaced", namespace, query, limit, sessionID, since, until))
}

// ExportEntries exports the entries a filter selects.
func (m *Memory) ExportEntries(ctx context.Context, f ExportFilter) ([]MemoryEntry, error) {
	return entries(memoryCall[entriesResult](ctx, m, "export-entries", f))
}

// StoreWithMetadata stores an entry with namespace and importance.
func (m *Memory) StoreWithMetadata(ctx context.Context, key, content string, category MemoryCategory, sessionID, namespace *string, importance *float64) error {
	return unit(memoryCall[unitResult](ctx, m, "store-with-metadata", key, content, category, sessionID, namespace, importance))
}
