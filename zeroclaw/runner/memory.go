package runner

import (
	"context"
	"fmt"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// notSupported is the error the host answers an unset purge flag with.
const notSupported = "not supported"

// Memory is a memory plugin (world memory-plugin) in a warm store. It has no config, no secrets
// and never wasi:http. After an interrupted call it answers ErrUnavailable ("plugin instance is
// unavailable: a previous call was interrupted before completion") until Rebuild. Safe for
// concurrent use; calls are serialised.
type Memory struct {
	w    *warm
	x    *bindings.MemoryPluginMemory
	name string
	caps MemoryCapabilities
}

// Memory builds memory plugin name (binding = the package name) and calls
// get-memory-capabilities once.
func (r *Runner) Memory(ctx context.Context, name string) (*Memory, error) {
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
func (r *Runner) MemoryWithScope(ctx context.Context, p *zeroclaw.Plugin, scope instance.Scope) (*Memory, error) {
	if err := scope.RequireCapability(manifest.CapabilityMemory); err != nil {
		return nil, err
	}
	e, err := r.load(ctx, p, scope)
	if err != nil {
		return nil, err
	}
	x, err := e.memory.get(e, p.Name(), bindings.NewMemoryPluginPre)
	if err != nil {
		return nil, err
	}
	m := &Memory{x: &x.Memory}
	m.w = &warm{rt: r, plugin: p, scope: scope, pre: e.pre, iface: ifaceMemory, setup: m.setup}
	if err := m.Rebuild(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Memory) setup(ctx context.Context) error {
	var err error
	if m.name, err = warmCallLocked(ctx, m.w, "name", false, m.x.Name); err != nil {
		return err
	}
	caps, err := warmCallLocked(ctx, m.w, "get-memory-capabilities", false, m.x.GetMemoryCapabilities)
	m.caps = MemoryCapabilities(caps)
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

// Invoke calls memory function name with dynamic values, for callers that hold no Go values
// (the CLI shell). A capability-gated function whose flag is unset is answered by the host as
// memory.wit documents, composing required functions where it says so, without entering the
// guest for the gated one: the same answers as the typed methods', decoded and encoded here.
func (m *Memory) Invoke(ctx context.Context, name string, args []abi.Value) ([]abi.Value, error) {
	ft, err := m.w.funcType(ctx, name)
	if err != nil {
		return nil, err
	}
	switch name {
	case "name":
		return m.w.answer(name, ft, m.name)
	case "get-memory-capabilities":
		return m.w.answer(name, ft, m.caps)
	}
	if flag, ok := memoryGated[name]; ok && !m.caps.Has(flag) {
		v, err := m.hostDefault(ctx, name, ft, args)
		if err != nil {
			return nil, err
		}
		return m.w.answer(name, ft, v)
	}
	return m.w.call(ctx, name, true, args)
}

// hostDefault answers gated function name, whose flag is unset, from its dynamic arguments.
func (m *Memory) hostDefault(ctx context.Context, name string, ft *abi.FuncType, args []abi.Value) (any, error) {
	w := m.w
	switch name {
	case "purge-namespace", "purge-session", "purge-session-for-agent", "purge-agent":
		return abi.Err[uint64](notSupported), nil
	case "reindex":
		return abi.Ok[uint64, string](0), nil
	case "store-procedural":
		return unitResult{}, nil
	case "ensure-agent-uuid":
		var alias string
		if err := w.decodeArgs(name, ft, args, &alias); err != nil {
			return nil, err
		}
		return abi.Ok[string, string](alias), nil
	case "get-for-agent":
		var key, agent string
		if err := w.decodeArgs(name, ft, args, &key, &agent); err != nil {
			return nil, err
		}
		return m.getForAgent(ctx, key, agent)
	case "recall-namespaced":
		var ns, query string
		var limit uint64
		var session, since, until *string
		if err := w.decodeArgs(name, ft, args, &ns, &query, &limit, &session, &since, &until); err != nil {
			return nil, err
		}
		return m.recallNamespaced(ctx, ns, query, limit, session, since, until)
	case "export-entries":
		var f bindings.ExportFilter
		if err := w.decodeArgs(name, ft, args, &f); err != nil {
			return nil, err
		}
		return m.exportEntries(ctx, f)
	case "store-with-metadata":
		var key, content string
		var cat bindings.MemoryCategory
		var session, ns *string
		var importance *float64
		if err := w.decodeArgs(name, ft, args, &key, &content, &cat, &session, &ns, &importance); err != nil {
			return nil, err
		}
		return m.storeEntry(ctx, key, content, cat, session)
	}
	return nil, fmt.Errorf("BUG: no host default for %s", name)
}

// isSet reports whether gated function name's flag is set, after making sure there is a live
// instance (so that a closed or unavailable memory says so even when the host answers).
func (m *Memory) isSet(ctx context.Context, flag MemoryCapabilities) (bool, error) {
	if err := m.w.ready(ctx); err != nil {
		return false, err
	}
	return m.caps.Has(flag), nil
}

type entriesResult = abi.Result[[]bindings.MemoryEntry, string]

func (m *Memory) storeEntry(ctx context.Context, key, content string, cat bindings.MemoryCategory, session *string) (unitResult, error) {
	return warmCall(ctx, m.w, "store-entry", true, func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return m.x.StoreEntry(ctx, in, key, content, cat, session)
	})
}

func (m *Memory) recall(ctx context.Context, query string, limit uint64, session, since, until *string) (entriesResult, error) {
	return warmCall(ctx, m.w, "recall", true, func(ctx context.Context, in *component.Instance) (entriesResult, error) {
		return m.x.Recall(ctx, in, query, limit, session, since, until)
	})
}

func (m *Memory) get(ctx context.Context, key string) (abi.Result[*bindings.MemoryEntry, string], error) {
	return warmCall(ctx, m.w, "get", true, func(ctx context.Context, in *component.Instance) (abi.Result[*bindings.MemoryEntry, string], error) {
		return m.x.Get(ctx, in, key)
	})
}

func (m *Memory) listEntries(ctx context.Context, cat *bindings.MemoryCategory, session *string) (entriesResult, error) {
	return warmCall(ctx, m.w, "list-entries", true, func(ctx context.Context, in *component.Instance) (entriesResult, error) {
		return m.x.ListEntries(ctx, in, cat, session)
	})
}

// getForAgent is get-for-agent, or, unset, get filtered by agent id.
func (m *Memory) getForAgent(ctx context.Context, key, agent string) (abi.Result[*bindings.MemoryEntry, string], error) {
	if set, err := m.isSet(ctx, MemoryGetForAgent); err != nil || set {
		if err != nil {
			return abi.Result[*bindings.MemoryEntry, string]{}, err
		}
		return warmCall(ctx, m.w, "get-for-agent", true, func(ctx context.Context, in *component.Instance) (abi.Result[*bindings.MemoryEntry, string], error) {
			return m.x.GetForAgent(ctx, in, key, agent)
		})
	}
	r, err := m.get(ctx, key)
	if err != nil || r.IsErr {
		return r, err
	}
	if r.Ok != nil && (r.Ok.AgentId == nil || *r.Ok.AgentId != agent) {
		r.Ok = nil
	}
	return r, nil
}

// recallNamespaced is recall-namespaced, or, unset, recall filtered by namespace.
func (m *Memory) recallNamespaced(ctx context.Context, ns, query string, limit uint64, session, since, until *string) (entriesResult, error) {
	if set, err := m.isSet(ctx, MemoryRecallNamespaced); err != nil || set {
		if err != nil {
			return entriesResult{}, err
		}
		return warmCall(ctx, m.w, "recall-namespaced", true, func(ctx context.Context, in *component.Instance) (entriesResult, error) {
			return m.x.RecallNamespaced(ctx, in, ns, query, limit, session, since, until)
		})
	}
	r, err := m.recall(ctx, query, limit, session, since, until)
	if err != nil || r.IsErr {
		return r, err
	}
	r.Ok = filterEntries(r.Ok, func(e *bindings.MemoryEntry) bool { return e.Namespace == ns })
	return r, nil
}

// exportEntries is export-entries, or, unset, list-entries filtered as f says.
func (m *Memory) exportEntries(ctx context.Context, f bindings.ExportFilter) (entriesResult, error) {
	if set, err := m.isSet(ctx, MemoryExportEntries); err != nil || set {
		if err != nil {
			return entriesResult{}, err
		}
		return warmCall(ctx, m.w, "export-entries", true, func(ctx context.Context, in *component.Instance) (entriesResult, error) {
			return m.x.ExportEntries(ctx, in, f)
		})
	}
	r, err := m.listEntries(ctx, f.Category, f.SessionId)
	if err != nil || r.IsErr {
		return r, err
	}
	r.Ok = filterEntries(r.Ok, func(e *bindings.MemoryEntry) bool {
		return (f.Namespace == nil || e.Namespace == *f.Namespace) &&
			(f.Since == nil || e.Timestamp >= *f.Since) && (f.Until == nil || e.Timestamp <= *f.Until)
	})
	return r, nil
}

func filterEntries(es []bindings.MemoryEntry, keep func(*bindings.MemoryEntry) bool) []bindings.MemoryEntry {
	out := []bindings.MemoryEntry{}
	for i := range es {
		if keep(&es[i]) {
			out = append(out, es[i])
		}
	}
	return out
}

func entries(r entriesResult, err error) ([]MemoryEntry, error) {
	if err != nil {
		return nil, err
	}
	es, err := resultErr(r)
	return entriesOf(es), err
}

func entry(r abi.Result[*bindings.MemoryEntry, string], err error) (*MemoryEntry, error) {
	if err != nil {
		return nil, err
	}
	e, err := resultErr(r)
	if e == nil {
		return nil, err
	}
	out := entryOf(e)
	return &out, err
}

func u64(r abi.Result[uint64, string], err error) (uint64, error) {
	if err != nil {
		return 0, err
	}
	return resultErr(r)
}

func boolResult(r abi.Result[bool, string], err error) (bool, error) {
	if err != nil {
		return false, err
	}
	return resultErr(r)
}

// Store stores an entry (store-entry).
func (m *Memory) Store(ctx context.Context, key, content string, category MemoryCategory, sessionID *string) error {
	return unit(m.storeEntry(ctx, key, content, category.wit(), sessionID))
}

// Recall finds up to limit entries matching query.
func (m *Memory) Recall(ctx context.Context, query string, limit uint64, sessionID, since, until *string) ([]MemoryEntry, error) {
	return entries(m.recall(ctx, query, limit, sessionID, since, until))
}

// Get returns the entry stored under key, or nil.
func (m *Memory) Get(ctx context.Context, key string) (*MemoryEntry, error) {
	return entry(m.get(ctx, key))
}

// List lists entries, optionally by category and session.
func (m *Memory) List(ctx context.Context, category *MemoryCategory, sessionID *string) ([]MemoryEntry, error) {
	return entries(m.listEntries(ctx, optCategory(category), sessionID))
}

// Forget removes key and reports whether it existed.
func (m *Memory) Forget(ctx context.Context, key string) (bool, error) {
	return boolResult(warmCall(ctx, m.w, "forget", true, func(ctx context.Context, in *component.Instance) (abi.Result[bool, string], error) {
		return m.x.Forget(ctx, in, key)
	}))
}

// ForgetForAgent removes key if agentID owns it.
func (m *Memory) ForgetForAgent(ctx context.Context, key, agentID string) (bool, error) {
	return boolResult(warmCall(ctx, m.w, "forget-for-agent", true, func(ctx context.Context, in *component.Instance) (abi.Result[bool, string], error) {
		return m.x.ForgetForAgent(ctx, in, key, agentID)
	}))
}

// Count is the number of entries.
func (m *Memory) Count(ctx context.Context) (uint64, error) {
	return u64(warmCall(ctx, m.w, "count", true, m.x.Count))
}

// HealthCheck reports the backend's health.
func (m *Memory) HealthCheck(ctx context.Context) bool {
	ok, err := warmCall(ctx, m.w, "health-check", true, m.x.HealthCheck)
	return err == nil && ok
}

// StoreWithAgent stores an entry with namespace, importance and agent.
func (m *Memory) StoreWithAgent(ctx context.Context, key, content string, category MemoryCategory, sessionID, namespace *string, importance *float64, agentID *string) error {
	return unit(warmCall(ctx, m.w, "store-with-agent", true, func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return m.x.StoreWithAgent(ctx, in, key, content, category.wit(), sessionID, namespace, importance, agentID)
	}))
}

// RecallForAgents recalls entries of the agents the filter selects.
func (m *Memory) RecallForAgents(ctx context.Context, agents AgentFilter, query string, limit uint64, sessionID, since, until *string) ([]MemoryEntry, error) {
	return entries(warmCall(ctx, m.w, "recall-for-agents", true, func(ctx context.Context, in *component.Instance) (entriesResult, error) {
		return m.x.RecallForAgents(ctx, in, agents, query, limit, sessionID, since, until)
	}))
}

// GetForAgent returns key's entry if agentID owns it.
func (m *Memory) GetForAgent(ctx context.Context, key, agentID string) (*MemoryEntry, error) {
	return entry(m.getForAgent(ctx, key, agentID))
}

// purge calls purge function name through f when flag is set; otherwise the host answers "not
// supported".
func (m *Memory) purge(ctx context.Context, name string, flag MemoryCapabilities, f func(context.Context, *component.Instance) (abi.Result[uint64, string], error)) (uint64, error) {
	set, err := m.isSet(ctx, flag)
	if err != nil {
		return 0, err
	}
	if !set {
		return u64(abi.Err[uint64](notSupported), nil)
	}
	return u64(warmCall(ctx, m.w, name, true, f))
}

// PurgeNamespace removes a namespace's entries.
func (m *Memory) PurgeNamespace(ctx context.Context, namespace string) (uint64, error) {
	return m.purge(ctx, "purge-namespace", MemoryPurgeNamespace, func(ctx context.Context, in *component.Instance) (abi.Result[uint64, string], error) {
		return m.x.PurgeNamespace(ctx, in, namespace)
	})
}

// PurgeSession removes a session's entries.
func (m *Memory) PurgeSession(ctx context.Context, sessionID string) (uint64, error) {
	return m.purge(ctx, "purge-session", MemoryPurgeSession, func(ctx context.Context, in *component.Instance) (abi.Result[uint64, string], error) {
		return m.x.PurgeSession(ctx, in, sessionID)
	})
}

// PurgeSessionForAgent removes an agent's entries of a session.
func (m *Memory) PurgeSessionForAgent(ctx context.Context, sessionID, agentID string) (uint64, error) {
	return m.purge(ctx, "purge-session-for-agent", MemoryPurgeSessionForAgent, func(ctx context.Context, in *component.Instance) (abi.Result[uint64, string], error) {
		return m.x.PurgeSessionForAgent(ctx, in, sessionID, agentID)
	})
}

// PurgeAgent removes an agent's entries.
func (m *Memory) PurgeAgent(ctx context.Context, agentAlias string) (uint64, error) {
	return m.purge(ctx, "purge-agent", MemoryPurgeAgent, func(ctx context.Context, in *component.Instance) (abi.Result[uint64, string], error) {
		return m.x.PurgeAgent(ctx, in, agentAlias)
	})
}

// Reindex rebuilds the backend's index (0 entries when the flag is unset).
func (m *Memory) Reindex(ctx context.Context) (uint64, error) {
	if set, err := m.isSet(ctx, MemoryReindex); err != nil || !set {
		return 0, err
	}
	return u64(warmCall(ctx, m.w, "reindex", true, m.x.Reindex))
}

// StoreProcedural stores procedural messages (a no-op when the flag is unset).
func (m *Memory) StoreProcedural(ctx context.Context, messages []ProceduralMessage, sessionID *string) error {
	if set, err := m.isSet(ctx, MemoryStoreProcedural); err != nil || !set {
		return err
	}
	return unit(warmCall(ctx, m.w, "store-procedural", true, func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return m.x.StoreProcedural(ctx, in, messages, sessionID)
	}))
}

// EnsureAgentUUID maps an agent alias to its id (the alias itself when the flag is unset).
func (m *Memory) EnsureAgentUUID(ctx context.Context, alias string) (string, error) {
	if set, err := m.isSet(ctx, MemoryEnsureAgentUUID); err != nil || !set {
		return alias, err
	}
	r, err := warmCall(ctx, m.w, "ensure-agent-uuid", true, func(ctx context.Context, in *component.Instance) (abi.Result[string, string], error) {
		return m.x.EnsureAgentUuid(ctx, in, alias)
	})
	if err != nil {
		return "", err
	}
	return resultErr(r)
}

// RecallNamespaced recalls within a namespace.
func (m *Memory) RecallNamespaced(ctx context.Context, namespace, query string, limit uint64, sessionID, since, until *string) ([]MemoryEntry, error) {
	return entries(m.recallNamespaced(ctx, namespace, query, limit, sessionID, since, until))
}

// ExportEntries exports the entries a filter selects.
func (m *Memory) ExportEntries(ctx context.Context, f ExportFilter) ([]MemoryEntry, error) {
	return entries(m.exportEntries(ctx, f.wit()))
}

// StoreWithMetadata stores an entry with namespace and importance (store-entry, namespace and
// importance dropped, when the flag is unset).
func (m *Memory) StoreWithMetadata(ctx context.Context, key, content string, category MemoryCategory, sessionID, namespace *string, importance *float64) error {
	set, err := m.isSet(ctx, MemoryStoreWithMetadata)
	if err != nil {
		return err
	}
	if !set {
		return unit(m.storeEntry(ctx, key, content, category.wit(), sessionID))
	}
	return unit(warmCall(ctx, m.w, "store-with-metadata", true, func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return m.x.StoreWithMetadata(ctx, in, key, content, category.wit(), sessionID, namespace, importance)
	}))
}
