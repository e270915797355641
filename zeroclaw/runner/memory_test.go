package runner

import (
	"context"
	"errors"
	"testing"
)

func TestMemory(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("map-mem", "memory"), "memory.wasm"})
	rt := openRuntime(t, h, config(nil))
	m, err := rt.Memory(ctx, "map-mem")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "map-memory" || m.Capabilities() != MemoryPurgeNamespace|MemoryReindex {
		t.Fatalf("%q %v", m.Name(), m.Capabilities().Labels())
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.Store(ctx, "k1", "hello world", CategoryCore, str("s1")))
	must(m.Store(ctx, "k2", "other", CustomCategory("mine"), nil))
	must(m.StoreWithAgent(ctx, "k3", "hello agent", CategoryDaily, nil, str("ns1"), nil, str("agent-7")))
	// store-with-metadata is unset: the host delegates to store-entry (namespace dropped).
	must(m.StoreWithMetadata(ctx, "k4", "meta hello", CategoryConversation, nil, str("ns1"), nil))

	keys := func(es []MemoryEntry, err error) string {
		t.Helper()
		must(err)
		s := ""
		for _, e := range es {
			s += e.Key + ","
		}
		return s
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"recall", keys(m.Recall(ctx, "hello", 10, nil, nil, nil)), "k1,k3,k4,"},
		{"recall limit", keys(m.Recall(ctx, "hello", 1, nil, nil, nil)), "k1,"},
		{"recall session", keys(m.Recall(ctx, "", 10, str("s1"), nil, nil)), "k1,"},
		{"list custom", keys(m.List(ctx, &MemoryCategory{Custom: str("mine")}, nil)), "k2,"},
		{"recall for agents", keys(m.RecallForAgents(ctx, AgentFilter{Some: &[]string{"agent-7"}}, "", 10, nil, nil, nil)), "k3,"},
		{"recall for all", keys(m.RecallForAgents(ctx, AgentFilter{All: true}, "hello", 10, nil, nil, nil)), "k1,k3,k4,"},
		// Unset flags composed by the host.
		{"recall-namespaced", keys(m.RecallNamespaced(ctx, "ns1", "hello", 10, nil, nil, nil)), "k3,"},
		{"export-entries", keys(m.ExportEntries(ctx, ExportFilter{Namespace: str("default")})), "k1,k2,k4,"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	e, err := m.Get(ctx, "k2")
	if err != nil || e == nil || e.Content != "other" || !e.Category.Equal(CustomCategory("mine")) {
		t.Fatalf("get: %+v %v", e, err)
	}
	if e, err := m.Get(ctx, "nope"); err != nil || e != nil {
		t.Fatalf("get missing: %+v %v", e, err)
	}
	if e, err := m.GetForAgent(ctx, "k3", "agent-7"); err != nil || e == nil {
		t.Fatalf("get-for-agent (composed): %+v %v", e, err)
	}
	if e, err := m.GetForAgent(ctx, "k3", "agent-8"); err != nil || e != nil {
		t.Fatalf("get-for-agent of another agent: %+v %v", e, err)
	}
	if _, err := m.PurgeSession(ctx, "s1"); !errors.Is(err, ErrPlugin) || err.Error() != "plugin returned error: not supported" {
		t.Errorf("purge-session (unset): %v", err)
	}
	if n, err := m.Reindex(ctx); err != nil || n != 42 {
		t.Errorf("reindex (set) = %d, %v; want the guest's 42", n, err)
	}
	if id, err := m.EnsureAgentUUID(ctx, "alias-x"); err != nil || id != "alias-x" {
		t.Errorf("ensure-agent-uuid (unset) = %q, %v", id, err)
	}
	if err := m.StoreProcedural(ctx, []ProceduralMessage{{Role: "user", Content: "x"}}, nil); err != nil {
		t.Errorf("store-procedural (unset): %v", err)
	}
	if n, err := m.PurgeNamespace(ctx, "ns1"); err != nil || n != 1 {
		t.Errorf("purge-namespace (set) = %d, %v", n, err)
	}
	if ok, err := m.Forget(ctx, "k1"); err != nil || !ok {
		t.Errorf("forget: %v %v", ok, err)
	}
	if ok, err := m.ForgetForAgent(ctx, "k2", "x"); err != nil || ok {
		t.Errorf("forget-for-agent: %v %v", ok, err)
	}
	if n, err := m.Count(ctx); err != nil || n != 2 {
		t.Errorf("count = %d, %v", n, err)
	}
	if !m.HealthCheck(ctx) {
		t.Error("health-check false")
	}
}

// TestMemoryUnavailableAfterInterruption: an interrupted call discards the store, and the memory
// answers the reference's "unavailable" until rebuilt.
func TestMemoryUnavailableAfterInterruption(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("map-mem", "memory"), "memory.wasm"})
	rt := openRuntime(t, h, config(nil))
	m, err := rt.Memory(ctx, "map-mem")
	if err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Store(canceled, "k", "v", CategoryCore, nil); err == nil {
		t.Fatal("a canceled call succeeded")
	}
	_, err = m.Count(ctx)
	if !errors.Is(err, ErrUnavailable) || err.Error() != "plugin instance is unavailable: a previous call was interrupted before completion" {
		t.Fatalf("after interruption: %v", err)
	}
	if err := m.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := m.Count(ctx); err != nil || n != 0 {
		t.Fatalf("after rebuild: %d %v", n, err)
	}
}
