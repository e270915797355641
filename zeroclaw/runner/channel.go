package runner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/runner/bindings"
)

// Listen's poll backoff, the reference's: from 50 ms, doubling to 500 ms, reset on a message.
const (
	PollBackoffMin = 50 * time.Millisecond
	PollBackoffMax = 500 * time.Millisecond
)

// channelGated maps each capability-gated function to its flag and the default the host answers
// with when the flag is unset (channel.wit), without entering the guest. Each default has the Go
// type of its function's result in the generated bindings.
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

// channelFuncs are the channel exports both WIT shapes share, with the same types: the generated
// bindings.ChannelPluginChannel (v0) and bindings.SeedChannelPluginChannel both have them.
type channelFuncs interface {
	Name(context.Context, *component.Instance) (string, error)
	Send(context.Context, *component.Instance, bindings.SendMessage) (unitResult, error)
	PollMessage(context.Context, *component.Instance) (*bindings.InboundMessage, error)
	GetChannelCapabilities(context.Context, *component.Instance) (bindings.ChannelCapabilities, error)
	HealthCheck(context.Context, *component.Instance) (bool, error)
	SelfHandle(context.Context, *component.Instance) (*string, error)
	SelfAddressedMention(context.Context, *component.Instance) (*string, error)
	DropSelfMessage(context.Context, *component.Instance, bindings.InboundMessage) (bool, error)
	StartTyping(ctx context.Context, in *component.Instance, recipient string) (unitResult, error)
	StopTyping(ctx context.Context, in *component.Instance, recipient string) (unitResult, error)
	SupportsDraftUpdates(context.Context, *component.Instance) (bool, error)
	SendDraft(context.Context, *component.Instance, bindings.SendMessage) (abi.Result[*string, string], error)
	UpdateDraft(ctx context.Context, in *component.Instance, recipient, messageID, text string) (unitResult, error)
	UpdateDraftProgress(ctx context.Context, in *component.Instance, recipient, messageID, text string) (unitResult, error)
	FinalizeDraft(ctx context.Context, in *component.Instance, recipient, messageID, text string) (unitResult, error)
	CancelDraft(ctx context.Context, in *component.Instance, recipient, messageID string) (unitResult, error)
	SupportsMultiMessageStreaming(context.Context, *component.Instance) (bool, error)
	MultiMessageDelayMs(context.Context, *component.Instance) (uint64, error)
	AddReaction(ctx context.Context, in *component.Instance, channelID, messageID, emoji string) (unitResult, error)
	RemoveReaction(ctx context.Context, in *component.Instance, channelID, messageID, emoji string) (unitResult, error)
	PinMessage(ctx context.Context, in *component.Instance, channelID, messageID string) (unitResult, error)
	UnpinMessage(ctx context.Context, in *component.Instance, channelID, messageID string) (unitResult, error)
	RedactMessage(ctx context.Context, in *component.Instance, channelID, messageID string, reason *string) (unitResult, error)
	RequestApproval(ctx context.Context, in *component.Instance, recipient string, req ApprovalRequest) (abi.Result[*ApprovalResponse, string], error)
	RequestChoice(ctx context.Context, in *component.Instance, question string, choices []string, timeoutSecs uint64) (abi.Result[*string, string], error)
	SupportsFreeFormAsk(context.Context, *component.Instance) (bool, error)
}

// channelExports are a channel plugin's exports, prepared once for its component, in whichever
// of the two shapes it has.
type channelExports struct {
	channelFuncs
	// seed is set for the seed's configure(), which reads config.get and secrets.get itself.
	seed bool
	// configure calls the plugin's configure, handing config (the public config JSON) to the
	// v0 shape's parameter; the seed's takes none.
	configure func(ctx context.Context, in *component.Instance, config string) (unitResult, error)
}

// prepareChannel prepares the channel world on pre in the shape the component has: the
// published v0 `configure(config: string)` or the seed's `configure()`. The two differ only
// there, so the shape is found by preparing each.
func prepareChannel(pre *component.InstancePre) (*channelExports, error) {
	v0, v0Err := bindings.NewChannelPluginPre(pre)
	if v0Err == nil {
		return &channelExports{channelFuncs: &v0.Channel, configure: v0.Channel.Configure}, nil
	}
	seed, seedErr := bindings.NewSeedChannelPluginPre(pre)
	if seedErr != nil {
		return nil, fmt.Errorf("it fits neither channel world: v0: %v; seed: %v", v0Err, seedErr)
	}
	return &channelExports{channelFuncs: &seed.Channel, seed: true,
		configure: func(ctx context.Context, in *component.Instance, _ string) (unitResult, error) {
			return seed.Channel.Configure(ctx, in)
		}}, nil
}

// Channel is a channel plugin (world channel-plugin) in a warm store. Both configure shapes load:
// the published v0 `configure(config: string)`, given the public config JSON resolved when the
// channel was built (the same snapshot on every re-creation), and the seed's `configure()`,
// which reads config.get and secrets.get itself. Safe for concurrent use; calls are serialised.
type Channel struct {
	w        *warm
	x        *channelExports
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
func (r *Runner) Channel(ctx context.Context, name, binding string, opts ChannelOptions) (*Channel, error) {
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
func (r *Runner) ChannelWithScope(ctx context.Context, p *zeroclaw.Plugin, scope instance.Scope, opts ChannelOptions) (*Channel, error) {
	if err := scope.RequireCapability(manifest.CapabilityChannel); err != nil {
		return nil, err
	}
	res, err := p.ResolveConfig(scope, r.cfg)
	if err != nil {
		return nil, err
	}
	e, err := r.load(ctx, p, scope)
	if err != nil {
		return nil, err
	}
	x, err := e.channel.get(e, p.Name(), prepareChannel)
	if err != nil {
		return nil, err
	}
	c := &Channel{x: x, snapshot: res.PublicJSON(), routing: p.Name(), alias: scope.ID.Binding}
	c.w = &warm{rt: r, plugin: p, scope: scope, pre: e.pre, iface: ifaceChannel, recreate: true,
		inbound: NewInboundQueue(opts.InboundCapacity), setup: c.setup}
	if err := c.w.ready(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// setup runs on every (re-)creation, with the warm lock held: configure in an authorised frame,
// then the static metadata in unauthorised ones.
func (c *Channel) setup(ctx context.Context) error {
	w, x := c.w, c.x
	r, err := warmCallLocked(ctx, w, "configure", true, func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return x.configure(ctx, in, c.snapshot)
	})
	if err != nil {
		return err
	}
	if _, err := resultErr(r); err != nil {
		return fmt.Errorf("channel configure failed: %w", err)
	}
	if c.name, err = warmCallLocked(ctx, w, "name", false, x.Name); err != nil {
		return err
	}
	caps, err := warmCallLocked(ctx, w, "get-channel-capabilities", false, x.GetChannelCapabilities)
	if err != nil {
		return err
	}
	c.caps = ChannelCapabilities(caps)
	c.selfHandle, c.mention, c.delay = nil, nil, 800
	if c.caps.Has(ChannelSelfHandle) {
		if c.selfHandle, err = warmCallLocked(ctx, w, "self-handle", false, x.SelfHandle); err != nil {
			return err
		}
	}
	if c.caps.Has(ChannelSelfAddressedMention) {
		if c.mention, err = warmCallLocked(ctx, w, "self-addressed-mention", false, x.SelfAddressedMention); err != nil {
			return err
		}
	}
	if c.caps.Has(ChannelMultiMessageDelayMS) {
		if c.delay, err = warmCallLocked(ctx, w, "multi-message-delay-ms", false, x.MultiMessageDelayMs); err != nil {
			return err
		}
	}
	return nil
}

// Name is the channel's name as the guest reported it.
func (c *Channel) Name() string { return c.name }

// Seed reports whether the plugin has the seed's configure() shape.
func (c *Channel) Seed() bool { return c.x.seed }

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

// Invoke calls channel function name with dynamic values, for callers that hold no Go values
// (the CLI shell). It answers as the typed methods do: a capability-gated function whose flag is
// unset with its WIT default without entering the guest, the cached metadata from the cache, and
// poll-message with the host's routing identity.
func (c *Channel) Invoke(ctx context.Context, name string, args []abi.Value) ([]abi.Value, error) {
	ft, err := c.w.funcType(ctx, name)
	if err != nil {
		return nil, err
	}
	if g, ok := channelGated[name]; ok && !c.caps.Has(g.flag) {
		return c.w.answer(name, ft, g.def)
	}
	switch name {
	case "self-handle":
		return c.w.answer(name, ft, c.selfHandle)
	case "self-addressed-mention":
		return c.w.answer(name, ft, c.mention)
	case "multi-message-delay-ms":
		return c.w.answer(name, ft, c.delay)
	case "get-channel-capabilities":
		return c.w.answer(name, ft, c.caps)
	case "name":
		return c.w.answer(name, ft, c.name)
	case "poll-message":
		m, err := c.Poll(ctx)
		if err != nil {
			return nil, err
		}
		return c.w.answer(name, ft, m)
	}
	return c.w.call(ctx, name, true, args)
}

// gatedCall calls capability-gated export name through f when its flag is set; otherwise it
// answers the WIT default without entering the guest (the instance is still made ready, so a
// closed channel says so).
func gatedCall[R any](ctx context.Context, c *Channel, name string, f func(context.Context, *component.Instance) (R, error)) (R, error) {
	g := channelGated[name]
	if !c.caps.Has(g.flag) {
		if err := c.w.ready(ctx); err != nil {
			var zero R
			return zero, err
		}
		return g.def.(R), nil
	}
	return warmCall(ctx, c.w, name, true, f)
}

// Send sends a message through the channel.
func (c *Channel) Send(ctx context.Context, m SendMessage) error {
	wm := m.wit()
	return unit(warmCall(ctx, c.w, "send", true, func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.Send(ctx, in, wm)
	}))
}

// Poll calls poll-message once. The message, if any, carries the host's routing identity:
// channel is the plugin's package name and channel-alias its binding, whatever the guest said.
// A trap marks the channel unhealthy; the next call re-creates the instance.
func (c *Channel) Poll(ctx context.Context) (*InboundMessage, error) {
	wm, err := warmCall(ctx, c.w, "poll-message", true, c.x.PollMessage)
	if err != nil {
		if errors.Is(err, ErrTrapped) || errors.Is(err, ErrDeadline) {
			c.unhealthy.Store(true)
		}
		return nil, err
	}
	c.unhealthy.Store(false)
	m := inboundOf(wm)
	if m == nil {
		return nil, nil
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
	ok, err := gatedCall(ctx, c, "health-check", c.x.HealthCheck)
	return err == nil && ok
}

// StartTyping signals a typing indicator.
func (c *Channel) StartTyping(ctx context.Context, recipient string) error {
	return unit(gatedCall(ctx, c, "start-typing", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.StartTyping(ctx, in, recipient)
	}))
}

// StopTyping clears it.
func (c *Channel) StopTyping(ctx context.Context, recipient string) error {
	return unit(gatedCall(ctx, c, "stop-typing", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.StopTyping(ctx, in, recipient)
	}))
}

// SupportsDraftUpdates reports progressive draft edits.
func (c *Channel) SupportsDraftUpdates(ctx context.Context) (bool, error) {
	return gatedCall(ctx, c, "supports-draft-updates", c.x.SupportsDraftUpdates)
}

// SendDraft sends an initial draft and returns its message id, if any.
func (c *Channel) SendDraft(ctx context.Context, m SendMessage) (*string, error) {
	wm := m.wit()
	r, err := gatedCall(ctx, c, "send-draft", func(ctx context.Context, in *component.Instance) (abi.Result[*string, string], error) {
		return c.x.SendDraft(ctx, in, wm)
	})
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// UpdateDraft replaces a draft's text.
func (c *Channel) UpdateDraft(ctx context.Context, recipient, messageID, text string) error {
	return unit(gatedCall(ctx, c, "update-draft", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.UpdateDraft(ctx, in, recipient, messageID, text)
	}))
}

// UpdateDraftProgress replaces a draft's text with a progress update.
func (c *Channel) UpdateDraftProgress(ctx context.Context, recipient, messageID, text string) error {
	return unit(gatedCall(ctx, c, "update-draft-progress", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.UpdateDraftProgress(ctx, in, recipient, messageID, text)
	}))
}

// FinalizeDraft finalises a draft.
func (c *Channel) FinalizeDraft(ctx context.Context, recipient, messageID, text string) error {
	return unit(gatedCall(ctx, c, "finalize-draft", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.FinalizeDraft(ctx, in, recipient, messageID, text)
	}))
}

// CancelDraft removes a draft.
func (c *Channel) CancelDraft(ctx context.Context, recipient, messageID string) error {
	return unit(gatedCall(ctx, c, "cancel-draft", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.CancelDraft(ctx, in, recipient, messageID)
	}))
}

// SupportsMultiMessageStreaming reports multi-message delivery.
func (c *Channel) SupportsMultiMessageStreaming(ctx context.Context) (bool, error) {
	return gatedCall(ctx, c, "supports-multi-message-streaming", c.x.SupportsMultiMessageStreaming)
}

// AddReaction adds an emoji reaction.
func (c *Channel) AddReaction(ctx context.Context, channelID, messageID, emoji string) error {
	return unit(gatedCall(ctx, c, "add-reaction", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.AddReaction(ctx, in, channelID, messageID, emoji)
	}))
}

// RemoveReaction removes one.
func (c *Channel) RemoveReaction(ctx context.Context, channelID, messageID, emoji string) error {
	return unit(gatedCall(ctx, c, "remove-reaction", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.RemoveReaction(ctx, in, channelID, messageID, emoji)
	}))
}

// PinMessage pins a message.
func (c *Channel) PinMessage(ctx context.Context, channelID, messageID string) error {
	return unit(gatedCall(ctx, c, "pin-message", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.PinMessage(ctx, in, channelID, messageID)
	}))
}

// UnpinMessage unpins one.
func (c *Channel) UnpinMessage(ctx context.Context, channelID, messageID string) error {
	return unit(gatedCall(ctx, c, "unpin-message", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.UnpinMessage(ctx, in, channelID, messageID)
	}))
}

// RedactMessage deletes a message.
func (c *Channel) RedactMessage(ctx context.Context, channelID, messageID string, reason *string) error {
	return unit(gatedCall(ctx, c, "redact-message", func(ctx context.Context, in *component.Instance) (unitResult, error) {
		return c.x.RedactMessage(ctx, in, channelID, messageID, reason)
	}))
}

// RequestApproval presents an approval prompt; nil when the channel does not implement it.
func (c *Channel) RequestApproval(ctx context.Context, recipient string, req ApprovalRequest) (*ApprovalResponse, error) {
	r, err := gatedCall(ctx, c, "request-approval", func(ctx context.Context, in *component.Instance) (abi.Result[*ApprovalResponse, string], error) {
		return c.x.RequestApproval(ctx, in, recipient, req)
	})
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// RequestChoice asks a multiple-choice question; nil on timeout or when unimplemented.
func (c *Channel) RequestChoice(ctx context.Context, question string, choices []string, timeoutSecs uint64) (*string, error) {
	r, err := gatedCall(ctx, c, "request-choice", func(ctx context.Context, in *component.Instance) (abi.Result[*string, string], error) {
		return c.x.RequestChoice(ctx, in, question, choices, timeoutSecs)
	})
	if err != nil {
		return nil, err
	}
	return resultErr(r)
}

// SupportsFreeFormAsk reports free-form ask-user support.
func (c *Channel) SupportsFreeFormAsk(ctx context.Context) (bool, error) {
	return gatedCall(ctx, c, "supports-free-form-ask", c.x.SupportsFreeFormAsk)
}

// DropSelfMessage asks whether an inbound message is self-authored.
func (c *Channel) DropSelfMessage(ctx context.Context, m InboundMessage) (bool, error) {
	wm := m.wit()
	return gatedCall(ctx, c, "drop-self-message", func(ctx context.Context, in *component.Instance) (bool, error) {
		return c.x.DropSelfMessage(ctx, in, wm)
	})
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
