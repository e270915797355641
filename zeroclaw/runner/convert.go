package runner

import "github.com/kobako/kobako/zeroclaw/runner/bindings"

// Conversions between the runtime's own WIT types (types.go) and the generated ones the calls
// take: plain field copies, no reflection, so the typed path costs no more than a struct copy.
// TestConversionsCoverGenerated checks that every field of each generated type is copied.

func eventOf(e bindings.PluginEvent) PluginEvent {
	return PluginEvent{FunctionName: e.FunctionName, Action: e.Action, Outcome: e.Outcome,
		DurationMS: e.DurationMs, Attrs: e.Attrs, Message: e.Message}
}

func toolResultOf(r bindings.ToolResult) ToolResult {
	return ToolResult(r) // the same fields; only the tags differ
}

func (m *HostInboundMessage) wit() *bindings.HostInboundMessage {
	return &bindings.HostInboundMessage{Id: m.ID, Sender: m.Sender, ReplyTarget: m.ReplyTarget,
		Content: m.Content, Channel: m.Channel, ChannelAlias: m.ChannelAlias, Timestamp: m.Timestamp,
		ThreadTs: m.ThreadTS, InterruptionScopeId: m.InterruptionScopeID, Subject: m.Subject}
}

func inboundOf(m *bindings.InboundMessage) *InboundMessage {
	if m == nil {
		return nil
	}
	return &InboundMessage{ID: m.Id, Sender: m.Sender, ReplyTarget: m.ReplyTarget, Content: m.Content,
		Channel: m.Channel, ChannelAlias: m.ChannelAlias, Timestamp: m.Timestamp, ThreadTS: m.ThreadTs,
		InterruptionScopeID: m.InterruptionScopeId, Attachments: m.Attachments, Subject: m.Subject}
}

func (m *InboundMessage) wit() bindings.InboundMessage {
	return bindings.InboundMessage{Id: m.ID, Sender: m.Sender, ReplyTarget: m.ReplyTarget,
		Content: m.Content, Channel: m.Channel, ChannelAlias: m.ChannelAlias, Timestamp: m.Timestamp,
		ThreadTs: m.ThreadTS, InterruptionScopeId: m.InterruptionScopeID, Attachments: m.Attachments,
		Subject: m.Subject}
}

func (m *SendMessage) wit() bindings.SendMessage {
	return bindings.SendMessage{Content: m.Content, Recipient: m.Recipient, Subject: m.Subject,
		ThreadTs: m.ThreadTS, Attachments: m.Attachments, InReplyTo: m.InReplyTo}
}

func (c MemoryCategory) wit() bindings.MemoryCategory { return bindings.MemoryCategory(c) }

func optCategory(c *MemoryCategory) *bindings.MemoryCategory {
	if c == nil {
		return nil
	}
	w := c.wit()
	return &w
}

func entryOf(e *bindings.MemoryEntry) MemoryEntry {
	return MemoryEntry{ID: e.Id, Key: e.Key, Content: e.Content, Category: MemoryCategory(e.Category),
		Timestamp: e.Timestamp, SessionID: e.SessionId, Score: e.Score, Namespace: e.Namespace,
		Importance: e.Importance, SupersededBy: e.SupersededBy, AgentAlias: e.AgentAlias, AgentID: e.AgentId}
}

func entriesOf(es []bindings.MemoryEntry) []MemoryEntry {
	if es == nil {
		return nil
	}
	out := make([]MemoryEntry, len(es))
	for i := range es {
		out[i] = entryOf(&es[i])
	}
	return out
}

func (f *ExportFilter) wit() bindings.ExportFilter {
	return bindings.ExportFilter{Namespace: f.Namespace, SessionId: f.SessionID,
		Category: optCategory(f.Category), Since: f.Since, Until: f.Until}
}
