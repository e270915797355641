package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

// Listen's poll backoff, the reference's: from 50 ms, doubling to 500 ms, reset on a message.
const (
	PollBackoffMin = 50 * time.Millisecond
	PollBackoffMax = 500 * time.Millisecond
)

// channelGated maps each capability-gated function to its flag and the default the host answers
// with when the flag is unset (channel.wit), without entering the guest.
var channelGated = map[string]struct {
	flag ChannelCapabilities
	def  any
}{
	"health-check":                     {ChannelHealthCheck, true},
	"self-handle":                      {ChannelSelfHandle, (*string)(nil)},
	"self-addressed-mention":           {ChannelSelfAddressedMention, (*string)(nil)},
	"drop-self-message":                {ChannelDropSelfMessage, false},
	"start-typing":                     {ChannelStartTyping, unitResult{}},
	"stop-typing":                      {ChannelStopTyping, unitResult{}},
	"supports-draft-updates":           {ChannelSupportsDraftUpdates, false},
	"supports-multi-message-streaming": {ChannelSupportsMultiMessageStreaming, false},
	"multi-message-delay-ms":           {ChannelMultiMessageDelayMS, uint64(800)},
	"send-draft":                       {ChannelSendDraft, abi.Result[*string, string]{}},
	"update-draft":                     {ChannelUpdateDraft, unitResult{}},
	"update-draft-progress":            {ChannelUpdateDraftProgress, unitResult{}},
	"finalize-draft":                   {ChannelFinalizeDraft, unitResult{}},
	"cancel-draft":                     {ChannelCancelDraft, unitResult{}},
	"add-reaction":                     {ChannelAddReaction, unitResult{}},
	"remove-reaction":                  {ChannelRemoveReaction, unitResult{}},
	"pin-message":                      {ChannelPinMessage, unitResult{}},
	"unpin-message":                    {ChannelUnpinMessage, unitResult{}},
	"redact-message":                   {ChannelRedactMessage, unitResult{}},
	"request-approval":                 {ChannelRequestApproval, abi.Result[*ApprovalResponse, string]{}},
	"request-choice":                   {ChannelRequestChoice, abi.Result[*string, string]{}},
	"supports-free-form-ask":           {ChannelSupportsFreeFormAsk, true},
}

// Channel is a channel plugin (world channel-plugin) in a warm store. Both configure shapes load:
// the published v0 `configure(config: string)`, given the public config JSON resolved when the
// channel was built (the same snapshot on every re-creation), and the seed's `configure()`,
// which reads config.get and secrets.get itself. Safe for concurrent use; calls are serialised.
type Channel struct {
	w        *warm
	seed     bool
	snapshot string
	routing  string
	alias    string

	name       string
	caps       ChannelCapabilities
	selfHandle *string
	mention    *string
	delay      uint64
	unhealthy  atomic.Bool
}

// ChannelOptions tune a channel.
type ChannelOptions struct {
	// InboundCapacity bounds the inbound queue (DefaultInboundCapacity when 0).
	InboundCapacity int
}

// Channel builds channel plugin name under binding (the channel alias), with every requested
// permission granted, and creates its instance: configure once, then get-channel-capabilities,
// then the cached self-handle, self-addressed-mention and multi-message-delay-ms when flagged.
func (r *Runtime) Channel(ctx context.Context, name, binding string, opts ChannelOptions) (*Channel, error) {
	p, err := r.plugin(name, manifest.CapabilityChannel)
	if err != nil {
		return nil, err
	}
	scope, err := p.Scope(manifest.CapabilityChannel, binding, instance.RequestedGrants(p.Manifest))
	if err != nil {
		return nil, err
	}
	return r.ChannelWithScope(ctx, p, scope, opts)
}

// ChannelWithScope builds a channel under a host-chosen scope.
func (r *Runtime) ChannelWithScope(ctx context.Context, p *zeroclaw.Plugin, scope instance.Scope, opts ChannelOptions) (*Channel, error) {
	if err := scope.RequireCapability(manifest.CapabilityChannel); err != nil {
		return nil, err
	}
	res, err := p.ResolveConfig(scope, r.cfg)
	if err != nil {
		return nil, err
	}
	pre, err := r.load(ctx, p, scope)
	if err != nil {
		return nil, err
	}
	c := &Channel{snapshot: res.PublicJSON(), routing: p.Name(), alias: scope.ID.Binding}
	c.w = &warm{rt: r, plugin: p, scope: scope, pre: pre, iface: ifaceChannel, recreate: true,
		inbound: NewInboundQueue(opts.InboundCapacity), setup: c.setup}
	c.w.mu.Lock()
	err = c.w.readyLocked(ctx)
	c.w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return c, nil
}

// setup runs on every (re-)creation, with the warm lock held.
func (c *Channel) setup(ctx context.Context) error {
	w := c.w
	cfgF, err := w.funcLocked(ctx, "configure")
	if err != nil {
		return err
	}
	var args []abi.Value
	switch n := len(cfgF.Type().Params()); n {
	case 0:
		c.seed = true
	case 1:
		args = []abi.Value{abi.StringValue(c.snapshot)}
	default:
		return fmt.Errorf("%w: channel configure takes %d parameters", ErrWorld, n)
	}
	res, err := w.callLocked(ctx, "configure", true, args)
	if err != nil {
		return err
	}
	r, err := fromValue[unitResult](cfgF.Type(), res)
	if err != nil {
		return err
	}
	if _, err := resultErr(r); err != nil {
		return fmt.Errorf("channel configure failed: %w", err)
	}
	if c.name, err = metaCall[string](ctx, w, "name"); err != nil {
		return err
	}
	if c.caps, err = metaCall[ChannelCapabilities](ctx, w, "get-channel-capabilities"); err != nil {
		return err
	}
	c.selfHandle, c.mention, c.delay = nil, nil, 800
	if c.caps.Has(ChannelSelfHandle) {
		if c.selfHandle, err = metaCall[*string](ctx, w, "self-handle"); err != nil {
			return err
		}
	}
	if c.caps.Has(ChannelSelfAddressedMention) {
		if c.mention, err = metaCall[*string](ctx, w, "self-addressed-mention"); err != nil {
			return err
		}
	}
	if c.caps.Has(ChannelMultiMessageDelayMS) {
		if c.delay, err = metaCall[uint64](ctx, w, "multi-message-delay-ms"); err != nil {
			return err
		}
	}
	return nil
}

// metaCall calls a parameterless export in an unauthorised frame, with the warm lock held.
func metaCall[R any](ctx context.Context, w *warm, name string) (R, error) {
	var zero R
	f, err := w.funcLocked(ctx, name)
	if err != nil {
		return zero, err
	}
	res, err := w.callLocked(ctx, name, false, nil)
	if err != nil {
		return zero, err
	}
	return fromValue[R](f.Type(), res)
}

// Name is the channel's name as the guest reported it.
func (c *Channel) Name() string { return c.name }

// Seed reports whether the plugin has the seed's configure() shape.
func (c *Channel) Seed() bool { return c.seed }

// Capabilities is the flag set get-channel-capabilities returned.
func (c *Channel) Capabilities() ChannelCapabilities { return c.caps }

// SelfHandle is the cached self-handle (none unless flagged).
func (c *Channel) SelfHandle() *string { return c.selfHandle }

// SelfAddressedMention is the cached self-addressed-mention (none unless flagged).
func (c *Channel) SelfAddressedMention() *string { return c.mention }

// MultiMessageDelayMS is the cached delay (800 unless flagged).
func (c *Channel) MultiMessageDelayMS() uint64 { return c.delay }

// Inbound is the channel's host inbound queue, for the embedder's listeners to push into.
func (c *Channel) Inbound() *InboundQueue { return c.w.inbound }

// Close discards the instance.
func (c *Channel) Close(ctx context.Context) error { return c.w.close(ctx) }

// FuncType returns the WIT type of a channel function, for dynamic callers (the CLI shell).
func (c *Channel) FuncType(ctx context.Context, name string) (*abi.FuncType, error) {
	return c.w.funcType(ctx, name)
}

// Invoke calls channel function name with dynamic values. A capability-gated function whose flag
// is unset is answered with its WIT default without entering the guest; the cached metadata is
// answered from the cache; poll-message results carry the host's routing identity.
func (c *Channel) Invoke(ctx context.Context, name string, args []abi.Value) ([]abi.Value, error) {
	ft, err := c.w.funcType(ctx, name)
	if err != nil {
		return nil, err
	}
	if g, ok := channelGated[name]; ok && !c.caps.Has(g.flag) {
		return toResult(ft, g.def)
	}
	switch name {
	case "self-handle":
		return toResult(ft, c.selfHandle)
	case "self-addressed-mention":
		return toResult(ft, c.mention)
	case "multi-message-delay-ms":
		return toResult(ft, c.delay)
	case "get-channel-capabilities":
		return toResult(ft, c.caps)
	case "name":
		return toResult(ft, c.name)
	case "poll-message":
		m, err := c.Poll(ctx)
		if err != nil {
			return nil, err
		}
		return toResult(ft, m)
	}
	return c.w.call(ctx, name, true, args)
}

// channelCall is the typed path over Invoke.
func channelCall[R any](ctx context.Context, c *Channel, name string, args ...any) (R, error) {
	var zero R
	ft, err := c.w.funcType(ctx, name)
	if err != nil {
		return zero, err
	}
	vals, err := toValues(ft, args)
	if err != nil {
		return zero, err
	}
	res, err := c.Invoke(ctx, name, vals)
	if err != nil {
		return zero, err
	}
	return fromValue[R](ft, res)
}

// Send sends a message through the channel.
func (c *Channel) Send(ctx context.Context, m SendMessage) error {
	r, err := channelCall[unitResult](ctx, c, "send", m)
	if err != nil {
		return err
	}
	_, err = resultErr(r)
	return err
}

// Poll calls poll-message once. The message, if any, carries the host's routing identity:
// channel is the plugin's package name and channel-alias its binding, whatever the guest said.
// A trap marks the channel unhealthy; the next call re-creates the instance.
func (c *Channel) Poll(ctx context.Context) (*InboundMessage, error) {
	ft, err := c.w.funcType(ctx, "poll-message")
	if err != nil {
		return nil, err
	}
	res, err := c.w.call(ctx, "poll-message", true, nil)
	if err != nil {
		if errors.Is(err, ErrTrapped) || errors.Is(err, ErrDeadline) {
			c.unhealthy.Store(true)
		}
		return nil, err
	}
	c.unhealthy.Store(false)
	m, err := fromValue[*InboundMessage](ft, res)
	if err != nil || m == nil {
		return nil, err
	}
	m.Channel = c.routing
	alias := c.alias
	m.ChannelAlias = &alias
	return m, nil
}

// Listen polls poll-message until ctx ends, sending each message to out, with the reference's
// backoff between empty polls (50 ms doubling to 500 ms, reset on a message). Errors are not
// fatal: a trap marks the channel unhealthy and polling goes on with a re-created instance.
// onError, when set, hears about each failed poll.
func (c *Channel) Listen(ctx context.Context, out chan<- InboundMessage, onError func(error)) error {
	backoff := PollBackoffMin
	for {
		m, err := c.Poll(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && onError != nil {
			onError(err)
		}
		if m != nil {
			select {
			case out <- *m:
			case <-ctx.Done():
				return ctx.Err()
			}
			backoff = PollBackoffMin
			continue
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		backoff = min(backoff*2, PollBackoffMax)
	}
}

// Healthy reports whether the last poll succeeded (a trap in poll-message clears it).
func (c *Channel) Healthy() bool { return !c.unhealthy.Load() }

// HealthCheck is false after a trap in poll-message; otherwise the guest's health-check, or
// true when the flag is unset.
func (c *Channel) HealthCheck(ctx context.Context) bool {
	if c.unhealthy.Load() {
		return false
	}
	ok, err := channelCall[bool](ctx, c, "health-check")
	return err == nil && ok
}

// StartTyping signals a typing indicator.
func (c *Channel) StartTyping(ctx context.Context, recipient string) error {
	return unit(channelCall[unitResult](ctx, c, "start-typing", recipient))
}

// StopTyping clears it.
func (c *Channel) StopTyping(ctx context.Context, recipient string) error {
	return unit(channelCall[unitResult](ctx, c, "stop-typing", recipient))
}

// SupportsDraftUpdates reports progressive draft edits.
func (c *Channel) SupportsDraftUpdates(ctx context.Context) (bool, error) {
	return channelCall[bool](ctx, c, "supports-draft-updates")
}

// SendDraft sends an initial draft and returns its message id, if any.
func (c *Channel) SendDraft(ctx context.Context, m SendMessage) (*string, error) {
	r, err := channelCall[abi.Result[*string, string]](ctx, c, "send-draft", m)
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// UpdateDraft replaces a draft's text.
func (c *Channel) UpdateDraft(ctx context.Context, recipient, messageID, text string) error {
	return unit(channelCall[unitResult](ctx, c, "update-draft", recipient, messageID, text))
}

// UpdateDraftProgress replaces a draft's text with a progress update.
func (c *Channel) UpdateDraftProgress(ctx context.Context, recipient, messageID, text string) error {
	return unit(channelCall[unitResult](ctx, c, "update-draft-progress", recipient, messageID, text))
}

// FinalizeDraft finalises a draft.
func (c *Channel) FinalizeDraft(ctx context.Context, recipient, messageID, text string) error {
	return unit(channelCall[unitResult](ctx, c, "finalize-draft", recipient, messageID, text))
}

// CancelDraft removes a draft.
func (c *Channel) CancelDraft(ctx context.Context, recipient, messageID string) error {
	return unit(channelCall[unitResult](ctx, c, "cancel-draft", recipient, messageID))
}

// SupportsMultiMessageStreaming reports multi-message delivery.
func (c *Channel) SupportsMultiMessageStreaming(ctx context.Context) (bool, error) {
	return channelCall[bool](ctx, c, "supports-multi-message-streaming")
}

// AddReaction adds an emoji reaction.
func (c *Channel) AddReaction(ctx context.Context, channelID, messageID, emoji string) error {
	return unit(channelCall[unitResult](ctx, c, "add-reaction", channelID, messageID, emoji))
}

// RemoveReaction removes one.
func (c *Channel) RemoveReaction(ctx context.Context, channelID, messageID, emoji string) error {
	return unit(channelCall[unitResult](ctx, c, "remove-reaction", channelID, messageID, emoji))
}

// PinMessage pins a message.
func (c *Channel) PinMessage(ctx context.Context, channelID, messageID string) error {
	return unit(channelCall[unitResult](ctx, c, "pin-message", channelID, messageID))
}

// UnpinMessage unpins one.
func (c *Channel) UnpinMessage(ctx context.Context, channelID, messageID string) error {
	return unit(channelCall[unitResult](ctx, c, "unpin-message", channelID, messageID))
}

// RedactMessage deletes a message.
func (c *Channel) RedactMessage(ctx context.Context, channelID, messageID string, reason *string) error {
	return unit(channelCall[unitResult](ctx, c, "redact-message", channelID, messageID, reason))
}

// RequestApproval presents an approval prompt; nil when the channel does not implement it.
func (c *Channel) RequestApproval(ctx context.Context, recipient string, req ApprovalRequest) (*ApprovalResponse, error) {
	r, err := channelCall[abi.Result[*ApprovalResponse, string]](ctx, c, "request-approval", recipient, req)
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// RequestChoice asks a multiple-choice question; nil on timeout or when unimplemented.
func (c *Channel) RequestChoice(ctx context.Context, question string, choices []string, timeoutSecs uint64) (*string, error) {
	r, err := channelCall[abi.Result[*string, string]](ctx, c, "request-choice", question, choices, timeoutSecs)
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// SupportsFreeFormAsk reports free-form ask-user support.
func (c *Channel) SupportsFreeFormAsk(ctx context.Context) (bool, error) {
	return channelCall[bool](ctx, c, "supports-free-form-ask")
}

// DropSelfMessage asks whether an inbound message is self-authored.
func (c *Channel) DropSelfMessage(ctx context.Context, m InboundMessage) (bool, error) {
	return channelCall[bool](ctx, c, "drop-self-message", m)
}

func unit(r unitResult, err error) error {
	if err != nil {
		return err
	}
	_, err = resultErr(r)
	return err
}

// MessageType is the WIT type of the plugin's channel.inbound-message.
func (c *Channel) MessageType(ctx context.Context) (abi.Type, error) {
	ft, err := c.w.funcType(ctx, "poll-message")
	if err != nil {
		return nil, err
	}
	rs := ft.Results()
	if len(rs) != 1 || rs[0].Kind() != abi.KindOption {
		return nil, fmt.Errorf("%w: poll-message has type %s", ErrWorld, ft)
	}
	return rs[0].(*abi.OptionType).Elem(), nil
}
