package runtime

import (
	"log/slog"
	"strings"
)

// Go mirrors of the zeroclaw:plugin@0.1.0 WIT types, in the shapes the component package's typed
// mapping expects (records as structs, options as pointers, enums and flags as integers that
// report their labels, variants as structs with one field per case). TestMirrorsMatchWIT checks
// every one against ../wit with go.bytecodealliance.org/wit, so a drift in either fails a test.

// LogLevel is logging.log-level.
type LogLevel uint8

// The log-level cases, in WIT order.
const (
	LogTrace LogLevel = iota
	LogDebug
	LogInfo
	LogWarn
	LogError
)

var logLevelLabels = []string{"trace", "debug", "info", "warn", "error"}

// WITLabels returns the enum's case names in WIT order.
func (LogLevel) WITLabels() []string { return logLevelLabels }

// String is the WIT case name.
func (l LogLevel) String() string { return label(logLevelLabels, int(l)) }

// SlogLevel maps the level onto log/slog's scale; trace sits below debug.
func (l LogLevel) SlogLevel() slog.Level {
	switch l {
	case LogTrace:
		return slog.LevelDebug - 4
	case LogDebug:
		return slog.LevelDebug
	case LogInfo:
		return slog.LevelInfo
	case LogWarn:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// PluginAction is logging.plugin-action, a closed taxonomy of 38 cases.
type PluginAction uint8

var pluginActionLabels = strings.Fields(`start complete fail cancel skip timeout retry inbound outbound
	send receive connect disconnect reconnect spawn kill tick trigger schedule approve reject defer
	read write delete list-action query invoke dispatch resolve register unregister load save
	migrate validate note memory-audit`)

// WITLabels returns the enum's case names in WIT order.
func (PluginAction) WITLabels() []string { return pluginActionLabels }

// String is the WIT case name.
func (a PluginAction) String() string { return label(pluginActionLabels, int(a)) }

// PluginOutcome is logging.plugin-outcome.
type PluginOutcome uint8

// The plugin-outcome cases.
const (
	OutcomeSuccess PluginOutcome = iota
	OutcomeFailure
)

var pluginOutcomeLabels = []string{"success", "failure"}

// WITLabels returns the enum's case names in WIT order.
func (PluginOutcome) WITLabels() []string { return pluginOutcomeLabels }

// String is the WIT case name.
func (o PluginOutcome) String() string { return label(pluginOutcomeLabels, int(o)) }

// PluginEvent is logging.plugin-event.
type PluginEvent struct {
	FunctionName string
	Action       PluginAction
	Outcome      *PluginOutcome
	DurationMS   *uint64
	Attrs        *string
	Message      string
}

// guestBytes is what the record costs the host in guest-controlled bytes.
func (e *PluginEvent) guestBytes() int {
	n := len(e.FunctionName) + len(e.Message)
	if e.Attrs != nil {
		n += len(*e.Attrs)
	}
	return n
}

// SecretError is secrets.secret-error.
type SecretError uint8

// The secret-error cases.
const (
	SecretAccessDenied SecretError = iota
	SecretNotFound
	SecretUnavailable
)

var secretErrorLabels = []string{"access-denied", "not-found", "unavailable"}

// WITLabels returns the enum's case names in WIT order.
func (SecretError) WITLabels() []string { return secretErrorLabels }

// String is the WIT case name.
func (e SecretError) String() string { return label(secretErrorLabels, int(e)) }

// ConfigError is config.config-error (the seed's config interface).
type ConfigError uint8

// The config-error cases.
const (
	ConfigAccessDenied ConfigError = iota
	ConfigUnavailable
)

var configErrorLabels = []string{"access-denied", "unavailable"}

// WITLabels returns the enum's case names in WIT order.
func (ConfigError) WITLabels() []string { return configErrorLabels }

// String is the WIT case name.
func (e ConfigError) String() string { return label(configErrorLabels, int(e)) }

// ToolResult is tool.tool-result.
type ToolResult struct {
	Success bool    `json:"success"`
	Output  string  `json:"output"`
	Error   *string `json:"error"`
}

// HostInboundMessage is inbound.host-inbound-message: what a host-run listener pushes into a
// channel's inbound queue.
type HostInboundMessage struct {
	ID                  string
	Sender              string
	ReplyTarget         string
	Content             string
	Channel             string
	ChannelAlias        *string
	Timestamp           uint64
	ThreadTS            *string
	InterruptionScopeID *string
	Subject             *string
}

// MediaAttachment is channel.media-attachment.
type MediaAttachment struct {
	FileName string
	Data     []byte
	MimeType *string
}

// InboundMessage is channel.inbound-message.
type InboundMessage struct {
	ID                  string
	Sender              string
	ReplyTarget         string
	Content             string
	Channel             string
	ChannelAlias        *string
	Timestamp           uint64
	ThreadTS            *string
	InterruptionScopeID *string
	Attachments         []MediaAttachment
	Subject             *string
}

// SendMessage is channel.send-message.
type SendMessage struct {
	Content     string
	Recipient   string
	Subject     *string
	ThreadTS    *string
	Attachments []MediaAttachment
	InReplyTo   *string
}

// ApprovalRequest is channel.approval-request.
type ApprovalRequest struct {
	ToolName         string
	ArgumentsSummary string
	RawArguments     *string
}

// ApprovalResponse is the variant channel.approval-response: exactly one case is set.
type ApprovalResponse struct {
	Approve       bool
	Deny          bool
	AlwaysApprove bool
	DenyWithEdit  *string
}

// ChannelCapabilities is the flags type channel.channel-capabilities: bit i is label i.
type ChannelCapabilities uint32

// The channel-capabilities flags.
const (
	ChannelHealthCheck ChannelCapabilities = 1 << iota
	ChannelSelfHandle
	ChannelSelfAddressedMention
	ChannelDropSelfMessage
	ChannelStartTyping
	ChannelStopTyping
	ChannelSupportsDraftUpdates
	ChannelSupportsMultiMessageStreaming
	ChannelMultiMessageDelayMS
	ChannelSendDraft
	ChannelUpdateDraft
	ChannelUpdateDraftProgress
	ChannelFinalizeDraft
	ChannelCancelDraft
	ChannelAddReaction
	ChannelRemoveReaction
	ChannelPinMessage
	ChannelUnpinMessage
	ChannelRedactMessage
	ChannelRequestApproval
	ChannelRequestChoice
	ChannelSupportsFreeFormAsk
)

var channelCapabilityLabels = strings.Fields(`health-check self-handle self-addressed-mention
	drop-self-message start-typing stop-typing supports-draft-updates supports-multi-message-streaming
	multi-message-delay-ms send-draft update-draft update-draft-progress finalize-draft cancel-draft
	add-reaction remove-reaction pin-message unpin-message redact-message request-approval
	request-choice supports-free-form-ask`)

// WITLabels returns the flag names in WIT order.
func (ChannelCapabilities) WITLabels() []string { return channelCapabilityLabels }

// Has reports whether every flag of f is set.
func (c ChannelCapabilities) Has(f ChannelCapabilities) bool { return c&f == f }

// Labels lists the set flags by WIT name.
func (c ChannelCapabilities) Labels() []string { return flagLabels(channelCapabilityLabels, uint32(c)) }

// MemoryCategory is the variant memory.memory-category: exactly one case is set.
type MemoryCategory struct {
	Core         bool
	Daily        bool
	Conversation bool
	Custom       *string
}

// Category constructors.
var (
	CategoryCore         = MemoryCategory{Core: true}
	CategoryDaily        = MemoryCategory{Daily: true}
	CategoryConversation = MemoryCategory{Conversation: true}
)

// CustomCategory is the custom(name) case.
func CustomCategory(name string) MemoryCategory { return MemoryCategory{Custom: &name} }

// Equal compares two categories by case and payload.
func (c MemoryCategory) Equal(d MemoryCategory) bool {
	if c.Custom != nil || d.Custom != nil {
		return c.Custom != nil && d.Custom != nil && *c.Custom == *d.Custom
	}
	return c == d
}

// MemoryEntry is memory.memory-entry.
type MemoryEntry struct {
	ID           string
	Key          string
	Content      string
	Category     MemoryCategory
	Timestamp    string
	SessionID    *string
	Score        *float64
	Namespace    string
	Importance   *float64
	SupersededBy *string
	AgentAlias   *string
	AgentID      *string
}

// ExportFilter is memory.export-filter.
type ExportFilter struct {
	Namespace *string
	SessionID *string
	Category  *MemoryCategory
	Since     *string
	Until     *string
}

// ProceduralMessage is memory.procedural-message.
type ProceduralMessage struct {
	Role    string
	Content string
	Name    *string
}

// AgentFilter is the variant memory.agent-filter: All, or Some with the agent ids.
type AgentFilter struct {
	All  bool
	Some *[]string
}

// MemoryCapabilities is the flags type memory.memory-capabilities.
type MemoryCapabilities uint32

// The memory-capabilities flags.
const (
	MemoryGetForAgent MemoryCapabilities = 1 << iota
	MemoryPurgeNamespace
	MemoryPurgeSession
	MemoryPurgeSessionForAgent
	MemoryPurgeAgent
	MemoryReindex
	MemoryStoreProcedural
	MemoryEnsureAgentUUID
	MemoryRecallNamespaced
	MemoryExportEntries
	MemoryStoreWithMetadata
)

var memoryCapabilityLabels = strings.Fields(`get-for-agent purge-namespace purge-session
	purge-session-for-agent purge-agent reindex store-procedural ensure-agent-uuid recall-namespaced
	export-entries store-with-metadata`)

// WITLabels returns the flag names in WIT order.
func (MemoryCapabilities) WITLabels() []string { return memoryCapabilityLabels }

// Has reports whether every flag of f is set.
func (c MemoryCapabilities) Has(f MemoryCapabilities) bool { return c&f == f }

// Labels lists the set flags by WIT name.
func (c MemoryCapabilities) Labels() []string { return flagLabels(memoryCapabilityLabels, uint32(c)) }

func label(labels []string, i int) string {
	if i < 0 || i >= len(labels) {
		return "unknown"
	}
	return labels[i]
}

func flagLabels(labels []string, bits uint32) []string {
	out := []string{}
	for i, l := range labels {
		if bits&(1<<i) != 0 {
			out = append(out, l)
		}
	}
	return out
}
