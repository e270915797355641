package runner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/zeroclaw"
	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

func channelKey(t *testing.T, pkg, binding string) string {
	t.Helper()
	id, err := instance.NewID(pkg, manifest.CapabilityChannel, binding)
	if err != nil {
		t.Fatal(err)
	}
	return id.Key()
}

func str(s string) *string { return &s }

// echoes sends each content and polls the echo back.
func echo(t *testing.T, c *Channel, content string) string {
	t.Helper()
	ctx := context.Background()
	if err := c.Send(ctx, SendMessage{Content: content, Recipient: "bob"}); err != nil {
		t.Fatal(err)
	}
	m, err := c.Poll(ctx)
	if err != nil || m == nil {
		t.Fatalf("poll after send %q: %v %v", content, m, err)
	}
	return m.Content
}

func TestChannelShapes(t *testing.T) {
	ctx := context.Background()
	h := newHost(t,
		fixturePlugin{secretManifest("v0-chan", "channel"), "channel-v0.wasm"},
		fixturePlugin{secretManifest("seed-chan", "channel"), "channel-seed.wasm"})
	values := map[string]string{"binding_label": "primary", "api_token": "tok-1"}
	cfg := config(nil,
		zeroclaw.EntryConfig{Name: channelKey(t, "v0-chan", "main"), Config: values},
		zeroclaw.EntryConfig{Name: channelKey(t, "seed-chan", "main"), Config: values})
	rt := openRuntime(t, h, cfg)
	tests := []struct {
		plugin, name   string
		seed           bool
		config, secret string
		secretUnknown  string
	}{
		{"v0-chan", "echo-channel", false, `config:{"binding_label":"primary"}`, "secret-error:no-import", "secret-error:no-import"},
		{"seed-chan", "seed-channel", true, `config:{"binding_label":"primary"}`, "secret:tok-1", "secret-error:not-found"},
	}
	for _, tc := range tests {
		t.Run(tc.plugin, func(t *testing.T) {
			c, err := rt.Channel(ctx, tc.plugin, "main", ChannelOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if c.Name() != tc.name || c.Seed() != tc.seed {
				t.Fatalf("name %q seed %v", c.Name(), c.Seed())
			}
			want := ChannelHealthCheck | ChannelSelfHandle | ChannelStartTyping | ChannelMultiMessageDelayMS | ChannelAddReaction
			if c.Capabilities() != want {
				t.Fatalf("capabilities %v", c.Capabilities().Labels())
			}
			if c.SelfHandle() == nil || *c.SelfHandle() != "@echo-bot" || c.SelfAddressedMention() != nil || c.MultiMessageDelayMS() != 250 {
				t.Fatalf("cached metadata %v %v %d", c.SelfHandle(), c.SelfAddressedMention(), c.MultiMessageDelayMS())
			}
			if got := echo(t, c, "hello"); got != "echo:hello" {
				t.Errorf("echo %q", got)
			}
			if got := echo(t, c, "config"); got != tc.config {
				t.Errorf("config %q", got)
			}
			if got := echo(t, c, "secret:api_token"); got != tc.secret {
				t.Errorf("secret %q", got)
			}
			if got := echo(t, c, "secret:binding_label"); got != tc.secretUnknown {
				t.Errorf("public property as secret %q", got)
			}
			if err := c.Send(ctx, SendMessage{Content: "fail", Recipient: "bob"}); !errors.Is(err, ErrPlugin) || !strings.Contains(err.Error(), "send failed") {
				t.Errorf("failing send: %v", err)
			}
			// Set flags reach the guest; unset ones get the WIT default without entering it
			// (every stub answers something else).
			if err := c.StartTyping(ctx, "bob"); err != nil {
				t.Errorf("start-typing: %v", err)
			}
			if err := c.AddReaction(ctx, "c", "m", "+1"); err != nil {
				t.Errorf("add-reaction: %v", err)
			}
			if err := c.StopTyping(ctx, "bob"); err != nil {
				t.Errorf("stop-typing (unset) entered the guest: %v", err)
			}
			for name, call := range map[string]func() (bool, error){
				"supports-draft-updates":           func() (bool, error) { return c.SupportsDraftUpdates(ctx) },
				"supports-multi-message-streaming": func() (bool, error) { return c.SupportsMultiMessageStreaming(ctx) },
				"drop-self-message":                func() (bool, error) { return c.DropSelfMessage(ctx, InboundMessage{}) },
			} {
				if v, err := call(); err != nil || v {
					t.Errorf("%s (unset) = %v, %v; want false", name, v, err)
				}
			}
			if v, err := c.SupportsFreeFormAsk(ctx); err != nil || !v {
				t.Errorf("supports-free-form-ask (unset) = %v, %v; want true", v, err)
			}
			if id, err := c.SendDraft(ctx, SendMessage{Content: "d"}); err != nil || id != nil {
				t.Errorf("send-draft (unset) = %v, %v", id, err)
			}
			if r, err := c.RequestApproval(ctx, "bob", ApprovalRequest{ToolName: "t"}); err != nil || r != nil {
				t.Errorf("request-approval (unset) = %v, %v", r, err)
			}
			if r, err := c.RequestChoice(ctx, "q", []string{"a"}, 5); err != nil || r != nil {
				t.Errorf("request-choice (unset) = %v, %v", r, err)
			}
			for _, err := range []error{c.UpdateDraft(ctx, "r", "m", "t"), c.FinalizeDraft(ctx, "r", "m", "t"),
				c.CancelDraft(ctx, "r", "m"), c.RemoveReaction(ctx, "c", "m", "e"), c.PinMessage(ctx, "c", "m"),
				c.UnpinMessage(ctx, "c", "m"), c.RedactMessage(ctx, "c", "m", nil), c.UpdateDraftProgress(ctx, "r", "m", "t")} {
				if err != nil {
					t.Errorf("unset flag entered the guest: %v", err)
				}
			}
			if !c.HealthCheck(ctx) {
				t.Error("health-check false")
			}
		})
	}
}

func TestChannelInboundAndRouting(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("v0-chan", "channel"), "channel-v0.wasm"})
	rt := openRuntime(t, h, config(nil))
	c, err := rt.Channel(ctx, "v0-chan", "alias-1", ChannelOptions{InboundCapacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	q := c.Inbound()
	in := HostInboundMessage{ID: "m1", Sender: "al", ReplyTarget: "al", Content: "hi", Channel: "spoofed",
		Timestamp: 7, ThreadTS: str("t"), Subject: str("s")}
	if n, err := q.Push(in); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if _, err := q.Push(in); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Push(in); !errors.Is(err, ErrInboundFull) {
		t.Fatalf("third push into a queue of 2: %v", err)
	}
	m, err := c.Poll(ctx)
	if err != nil || m == nil {
		t.Fatal(m, err)
	}
	if m.ID != "m1" || m.Content != "hi" || m.Timestamp != 7 || *m.ThreadTS != "t" || *m.Subject != "s" {
		t.Errorf("message %+v", m)
	}
	// The guest says "guest-channel"/"guest-alias"; the host stamps its own identity.
	if m.Channel != "v0-chan" || m.ChannelAlias == nil || *m.ChannelAlias != "alias-1" {
		t.Errorf("routing %q %v", m.Channel, m.ChannelAlias)
	}
}

// TestChannelTrapInPoll: a trap marks the channel unhealthy and loses only the message already
// dequeued; the backlog stays and the next call re-creates the instance.
func TestChannelTrapInPoll(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("v0-chan", "channel"), "channel-v0.wasm"})
	rt := openRuntime(t, h, config(nil))
	c, err := rt.Channel(ctx, "v0-chan", "main", ChannelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"trap", "after"} {
		if _, err := c.Inbound().Push(HostInboundMessage{ID: content, Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Poll(ctx); !errors.Is(err, ErrTrapped) || !strings.Contains(err.Error(), "channel.poll-message trapped") {
		t.Fatalf("poll of a trapping message: %v", err)
	}
	if c.HealthCheck(ctx) || c.Healthy() {
		t.Fatal("healthy after a trap in poll")
	}
	m, err := c.Poll(ctx)
	if err != nil || m == nil || m.Content != "after" {
		t.Fatalf("after the trap: %v %v", m, err)
	}
	if !c.HealthCheck(ctx) {
		t.Fatal("still unhealthy after a good poll")
	}
	// The re-created instance was configured again from the same snapshot.
	if got := echo(t, c, "config"); got != "config:{}" {
		t.Errorf("config after re-creation %q", got)
	}
}

// TestChannelDeadlines: a spinning poll-message is interrupted within 100 ms of the deadline,
// the store is discarded, and the next call re-creates it.
func TestChannelDeadlines(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, fixturePlugin{plainManifest("v0-chan", "channel"), "channel-v0.wasm"})
	const deadline = 300 * time.Millisecond
	rt := openRuntime(t, h, config(func(l *zeroclaw.Limits) { l.CallTimeoutMS = uint64(deadline.Milliseconds()) }))
	c, err := rt.Channel(ctx, "v0-chan", "main", ChannelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Inbound().Push(HostInboundMessage{ID: "s", Content: "spin"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Poll(ctx)
	took := time.Since(start)
	if !errors.Is(err, ErrDeadline) || err.Error() != "plugin call exceeded wall-clock deadline of 300 ms" {
		t.Fatalf("spinning poll: %v", err)
	}
	if took < deadline || took > deadline+slack() {
		t.Errorf("interrupted after %v, want within %v of %v", took, slack(), deadline)
	}
	if got := echo(t, c, "back"); got != "echo:back" {
		t.Errorf("after re-creation %q", got)
	}
}

// TestChannelPolledWhilePushed runs the listen loop while several goroutines push (-race).
func TestChannelPolledWhilePushed(t *testing.T) {
	h := newHost(t, fixturePlugin{plainManifest("v0-chan", "channel"), "channel-v0.wasm"})
	rt := openRuntime(t, h, config(nil))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := rt.Channel(ctx, "v0-chan", "main", ChannelOptions{InboundCapacity: 4096})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan InboundMessage)
	lctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Listen(lctx, out, nil) }()
	const pushers, each = 4, 50
	var wg sync.WaitGroup
	for p := range pushers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := c.Inbound().Push(HostInboundMessage{ID: string(rune('a'+p)) + "-" + string(rune('0'+i%10)), Content: "m"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	got := 0
	for got < pushers*each {
		select {
		case <-out:
			got++
		case <-ctx.Done():
			t.Fatalf("received %d of %d", got, pushers*each)
		}
	}
	wg.Wait()
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("listen ended with %v", err)
	}
}
