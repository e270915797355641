package runner

import (
	"log/slog"

	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// The zeroclaw:plugin@0.1.0 WIT types of the runtime's API. Where a generated type of package
// bindings reads well in Go, it is the runtime's type (an alias): the enums, and the records and
// variants whose field names need no initialisms. The rest are kept here, with Go's initialisms
// (ID, TS, MS) and the methods and JSON names the runtime's callers rely on, and are converted
// to and from the generated types field by field at the calls (convert.go);
// TestConversionsCoverGenerated fails when the WIT gains a field one of them lacks.

// LogLevel is logging.log-level.
type LogLevel = bindings.LogLevel

// The log-level cases, in WIT order.
const (
	LogTrace = bindings.LogLevelTrace
	LogDebug = bindings.LogLevelDebug
	LogInfo  = bindings.LogLevelInfo
	LogWarn  = bindings.LogLevelWarn
	LogError = bindings.LogLevelError
)

// slogLevel maps a log level onto log/slog's scale; trace sits below debug.
func slogLevel(l LogLevel) slog.Level {
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
type PluginAction = bindings.PluginAction

// PluginOutcome is logging.plugin-outcome.
type PluginOutcome = bindings.PluginOutcome

// The plugin-outcome cases.
const (
	OutcomeSuccess = bindings.PluginOutcomeSuccess
	OutcomeFailure = bindings.PluginOutcomeFailure
)

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
type SecretError = bindings.SecretError

// The secret-error cases.
const (
	SecretAccessDenied = bindings.SecretErrorAccessDenied
	SecretNotFound     = bindings.SecretErrorNotFound
	SecretUnavailable  = bindings.SecretErrorUnavailable
)

// ConfigError is config.config-error (the seed's config interface).
type ConfigError = bindings.ConfigError

// The config-error cases.
const (
	ConfigAccessDenied = bindings.ConfigErrorAccessDenied
	ConfigUnavailable  = bindings.ConfigErrorUnavailable
)

// ToolResult is tool.tool-result, with the JSON names `kobako plugin call` prints.
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
type MediaAttachment = bindings.MediaAttachment

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
type ApprovalRequest = bindings.ApprovalRequest

// ApprovalResponse is the variant channel.approval-response: exactly one case is set.
type ApprovalResponse = bindings.ApprovalResponse

// ChannelCapabilities is the flags type channel.channel-capabilities: bit i is label i.
type ChannelCapabilities uint32

// The channel-capabilities flags.
const (
	ChannelHealthCheck                   = ChannelCapabilities(bindings.ChannelCapabilitiesHealthCheck)
	ChannelSelfHandle                    = ChannelCapabilities(bindings.ChannelCapabilitiesSelfHandle)
	ChannelSelfAddressedMention          = ChannelCapabilities(bindings.ChannelCapabilitiesSelfAddressedMention)
	ChannelDropSelfMessage               = ChannelCapabilities(bindings.ChannelCapabilitiesDropSelfMessage)
	ChannelStartTyping                   = ChannelCapabilities(bindings.ChannelCapabilitiesStartTyping)
	ChannelStopTyping                    = ChannelCapabilities(bindings.ChannelCapabilitiesStopTyping)
	ChannelSupportsDraftUpdates          = ChannelCapabilities(bindings.ChannelCapabilitiesSupportsDraftUpdates)
	ChannelSupportsMultiMessageStreaming = ChannelCapabilities(bindings.ChannelCapabilitiesSupportsMultiMessageStreaming)
	ChannelMultiMessageDelayMS           = ChannelCapabilities(bindings.ChannelCapabilitiesMultiMessageDelayMs)
	ChannelSendDraft                     = ChannelCapabilities(bindings.ChannelCapabilitiesSendDraft)
	ChannelUpdateDraft                   = ChannelCapabilities(bindings.ChannelCapabilitiesUpdateDraft)
	ChannelUpdateDraftProgress           = ChannelCapabilities(bindings.ChannelCapabilitiesUpdateDraftProgress)
	ChannelFinalizeDraft                 = ChannelCapabilities(bindings.ChannelCapabilitiesFinalizeDraft)
	ChannelCancelDraft                   = ChannelCapabilities(bindings.ChannelCapabilitiesCancelDraft)
	ChannelAddReaction                   = ChannelCapabilities(bindings.ChannelCapabilitiesAddReaction)
	ChannelRemoveReaction                = ChannelCapabilities(bindings.ChannelCapabilitiesRemoveReaction)
	ChannelPinMessage                    = ChannelCapabilities(bindings.ChannelCapabilitiesPinMessage)
	ChannelUnpinMessage                  = ChannelCapabilities(bindings.ChannelCapabilitiesUnpinMessage)
	ChannelRedactMessage                 = ChannelCapabilities(bindings.ChannelCapabilitiesRedactMessage)
	ChannelRequestApproval               = ChannelCapabilities(bindings.ChannelCapabilitiesRequestApproval)
	ChannelRequestChoice                 = ChannelCapabilities(bindings.ChannelCapabilitiesRequestChoice)
	ChannelSupportsFreeFormAsk           = ChannelCapabilities(bindings.ChannelCapabilitiesSupportsFreeFormAsk)
)

// WITLabels returns the flag names in WIT order.
func (ChannelCapabilities) WITLabels() []string { return bindings.ChannelCapabilities(0).WITLabels() }

// Has reports whether every flag of f is set.
func (c ChannelCapabilities) Has(f ChannelCapabilities) bool { return c&f == f }

// Labels lists the set flags by WIT name.
func (c ChannelCapabilities) Labels() []string { return flagLabels(c.WITLabels(), uint32(c)) }

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
type ProceduralMessage = bindings.ProceduralMessage

// AgentFilter is the variant memory.agent-filter: All, or Some with the agent ids.
type AgentFilter = bindings.AgentFilter

// MemoryCapabilities is the flags type memory.memory-capabilities.
type MemoryCapabilities uint32

// The memory-capabilities flags.
const (
	MemoryGetForAgent          = MemoryCapabilities(bindings.MemoryCapabilitiesGetForAgent)
	MemoryPurgeNamespace       = MemoryCapabilities(bindings.MemoryCapabilitiesPurgeNamespace)
	MemoryPurgeSession         = MemoryCapabilities(bindings.MemoryCapabilitiesPurgeSession)
	MemoryPurgeSessionForAgent = MemoryCapabilities(bindings.MemoryCapabilitiesPurgeSessionForAgent)
	MemoryPurgeAgent           = MemoryCapabilities(bindings.MemoryCapabilitiesPurgeAgent)
	MemoryReindex              = MemoryCapabilities(bindings.MemoryCapabilitiesReindex)
	MemoryStoreProcedural      = MemoryCapabilities(bindings.MemoryCapabilitiesStoreProcedural)
	MemoryEnsureAgentUUID      = MemoryCapabilities(bindings.MemoryCapabilitiesEnsureAgentUuid)
	MemoryRecallNamespaced     = MemoryCapabilities(bindings.MemoryCapabilitiesRecallNamespaced)
	MemoryExportEntries        = MemoryCapabilities(bindings.MemoryCapabilitiesExportEntries)
	MemoryStoreWithMetadata    = MemoryCapabilities(bindings.MemoryCapabilitiesStoreWithMetadata)
)

// WITLabels returns the flag names in WIT order.
func (MemoryCapabilities) WITLabels() []string { return bindings.MemoryCapabilities(0).WITLabels() }

// Has reports whether every flag of f is set.
func (c MemoryCapabilities) Has(f MemoryCapabilities) bool { return c&f == f }

// Labels lists the set flags by WIT name.
func (c MemoryCapabilities) Labels() []string { return flagLabels(c.WITLabels(), uint32(c)) }

func flagLabels(labels []string, bits uint32) []string {
	out := []string{}
	for i, l := range labels {
		if bits&(1<<i) != 0 {
			out = append(out, l)
		}
	}
	return out
}
