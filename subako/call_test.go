package subako

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/wasi"
)

func limitsWith(f func(*engine.Limits)) engine.Limits {
	l := DefaultCallLimits()
	f(&l)
	return l
}

// TestCall_Crashes runs one misbehaving fixture per crash rule of ABI 1.
func TestCall_Crashes(t *testing.T) {
	tests := []struct {
		fixture string
		limits  engine.Limits
		rule    Rule
		detail  string // in CrashError.Detail
		stderr  string // in CrashError.Stderr
	}{
		{fixture: "rpc_error", rule: RuleRPCError, detail: "code -32603: boom", stderr: "rpc_error: giving up"},
		{fixture: "not_complete", rule: RuleNotComplete, detail: `"input_required"`},
		{fixture: "not_json", rule: RuleNotMessage, detail: "debug: got a request"},
		{fixture: "unknown_id", rule: RuleUnknownID, detail: `"not-sent"`},
		{fixture: "own_request", rule: RuleOwnRequest, detail: "sampling/createMessage"},
		{fixture: "exit_early", rule: RuleExitBeforeAnswer},
		{fixture: "exit_nonzero", rule: RuleExitNonZero, detail: "exit status 3"},
		{fixture: "linger", rule: RuleLingered},
		{fixture: "trap", rule: RuleTrap, detail: "unreachable", stderr: "trap: about to hit unreachable"},
		{fixture: "spin", limits: limitsWith(func(l *engine.Limits) { l.Fuel = 200_000 }), rule: RuleOutOfFuel},
		{fixture: "spin", limits: limitsWith(func(l *engine.Limits) { l.Fuel = engine.MaxFuel; l.Deadline = 300 * time.Millisecond }), rule: RuleOutOfTime},
		{fixture: "memgrow", limits: limitsWith(func(l *engine.Limits) { l.MemoryBytes = 4 << 20 }), rule: RuleOutOfMemory},
		{fixture: "big_stdout", rule: RuleStdoutTooLarge},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.fixture, tt.rule), func(t *testing.T) {
			t.Parallel()
			p := loadFixture(t, tt.fixture, nil)
			start := time.Now()
			res, err := p.Call(context.Background(), "greet", nil, CallOptions{Limits: tt.limits})
			var c *CrashError
			if !errors.As(err, &c) || !errors.Is(err, ErrCrash) {
				t.Fatalf("Call = %v, %v; want a crash", res, err)
			}
			if c.Rule != tt.rule {
				t.Fatalf("rule = %q (%v), want %q", c.Rule, err, tt.rule)
			}
			if !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", c.Detail, tt.detail)
			}
			if !strings.Contains(c.Stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", c.Stderr, tt.stderr)
			}
			if !strings.Contains(c.Report(), tt.rule.String()) {
				t.Errorf("report %q does not name the rule", c.Report())
			}
			if tt.rule == RuleLingered {
				if d := time.Since(start); d < ExitGrace || d > ExitGrace+5*time.Second {
					t.Errorf("lingering module stopped after %s, want just over %s", d, ExitGrace)
				}
			}
		})
	}
}

// TestDiscover_Crashes: discovery applies the same crash rules.
func TestDiscover_Crashes(t *testing.T) {
	for fx, rule := range map[string]Rule{"rpc_error": RuleRPCError, "exit_early": RuleExitBeforeAnswer, "own_request": RuleOwnRequest} {
		p := loadFixture(t, fx, nil)
		_, err := p.Discover(context.Background())
		var c *CrashError
		if !errors.As(err, &c) || c.Rule != rule {
			t.Errorf("%s: Discover = %v, want rule %q", fx, err, rule)
		}
	}
}

// TestCall_NotificationsIgnored: messages without an id around the answer change nothing.
func TestCall_NotificationsIgnored(t *testing.T) {
	p := loadFixture(t, "notify", nil)
	if _, err := p.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := p.Call(context.Background(), "greet", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "hello from wat" {
		t.Errorf("content = %+v", res.Content)
	}
}

func TestCallDriver_MalformedResult(t *testing.T) {
	for _, in := range []string{`{}`, `{"content":"text"}`, `{"content":[],"isError":"yes"}`, `{"content":null}`} {
		d := &callDriver{}
		_, err := d.answer(json.RawMessage(in))
		var c *CrashError
		if !errors.As(err, &c) || c.Rule != RuleMalformedResult {
			t.Errorf("%s: %v", in, err)
		}
	}
	d := &callDriver{}
	if next, err := d.answer(json.RawMessage(`{"content":[]}`)); next != nil || err != nil || string(d.result) != `{"content":[]}` {
		t.Errorf("valid result: %v %v", next, err)
	}
}

func TestCall_CanceledByCaller(t *testing.T) {
	p := loadFixture(t, "spin", nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := p.Call(ctx, "greet", nil, CallOptions{Limits: limitsWith(func(l *engine.Limits) { l.Fuel = engine.MaxFuel })})
	if err == nil || errors.Is(err, ErrCrash) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled and no crash", err)
	}
}

func TestCall_Errors(t *testing.T) {
	p := loadFixture(t, "tiny", nil)
	if _, err := p.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tool string
		args string
		opts CallOptions
		want error
	}{
		{"unknown tool", "nope", "{}", CallOptions{}, ErrUnknownTool},
		{"array args", "greet", "[1]", CallOptions{}, ErrOptions},
		{"bad json args", "greet", "{", CallOptions{}, ErrOptions},
		{"bad limits", "greet", "{}", CallOptions{Limits: engine.Limits{Deadline: -1}}, ErrOptions},
		{"bad skill name", "greet", "{}", CallOptions{Skills: []Skill{{Name: "../x", Dir: t.TempDir()}}}, ErrOptions},
		{"skill without source", "greet", "{}", CallOptions{Skills: []Skill{{Name: "x"}}}, ErrOptions},
		{"negative budget", "greet", "{}", CallOptions{WriteBudget: -1}, ErrOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Call(context.Background(), tt.tool, json.RawMessage(tt.args), tt.opts)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestCall_Everything exercises the Go fixture's tools: results, content mapping, the sandbox.
func TestCall_Everything(t *testing.T) {
	p := loadFixture(t, "everything", map[string]string{"hello.txt": "asset text"})
	ctx := context.Background()
	if _, err := p.Discover(ctx); err != nil {
		t.Fatal(err)
	}

	t.Run("greet", func(t *testing.T) {
		res, err := p.Call(ctx, "greet", json.RawMessage(`{"name":"Ada"}`), CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "Hello, Ada!" || string(res.StructuredContent) != `{"message":"Hello, Ada!"}` {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("isError is a result", func(t *testing.T) {
		res, err := p.Call(ctx, "fail", nil, CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		if !res.IsError || string(b) != `{"content":[{"type":"text","text":"name must not be empty"}],"isError":true}` {
			t.Errorf("result = %s", b)
		}
	})
	t.Run("content blocks", func(t *testing.T) {
		vol := t.TempDir()
		res, err := p.Call(ctx, "blocks", nil, CallOptions{Volume: vol})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Content
		if len(c) != 6 {
			t.Fatalf("content = %+v", c)
		}
		png, _ := os.ReadFile(filepath.Join(vol, "chart 1.png"))
		checks := []struct {
			ok   bool
			what string
		}{
			{c[0].Type == "text" && c[0].Text == "plain", "text block"},
			{c[1].Type == "image" && c[1].MIMEType == "image/png" && string(c[1].Data) == string(png) && c[1].URI == "", "inline image"},
			{c[2].Type == "image" && c[2].MIMEType == "image/png" && string(c[2].Data) == string(png) && c[2].URI == "volume:///tmp/chart%201.png", "volume image link, percent-decoded"},
			{c[3].Type == "text" && strings.Contains(c[3].Text, "not a PNG, JPEG, GIF or WebP"), "volume link to a text file"},
			{c[4].Type == "text" && c[4].Text == "[resource link: report <https://example.com/report>]", "other resource link"},
			{c[5].Type == "text" && strings.Contains(c[5].Text, `"audio" was omitted`), "unknown block"},
		}
		for i, ch := range checks {
			if !ch.ok {
				t.Errorf("%s: got %+v", ch.what, c[i])
			}
		}
	})
	t.Run("environment and preopens", func(t *testing.T) {
		data, skill := t.TempDir(), t.TempDir()
		must(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("skill text"), 0o644))
		res, err := p.Call(ctx, "env", nil, CallOptions{Data: data, Skills: []Skill{{Name: "writing", Dir: skill}, {Name: "other", Dir: t.TempDir()}}})
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Args            []string `json:"args"`
			Env             []string `json:"env"`
			Preopens        []string `json:"preopens"`
			Asset, Skill    string
			PackageWritable bool            `json:"package_writable"`
			ID              json.RawMessage `json:"id"`
			Meta            map[string]any  `json:"meta"`
			Allocate        int             `json:"fd_allocate"`
			AcceptPreopen   int             `json:"sock_accept_preopen"`
			AcceptNone      int             `json:"sock_accept_none"`
		}
		must(t, json.Unmarshal([]byte(res.Content[0].Text), &env))
		want := []string{"/volume/tmp", "/volume/data", "/package", "/skills", "/skills/writing", "/skills/other"}
		if strings.Join(env.Preopens, ",") != strings.Join(want, ",") {
			t.Errorf("preopens = %q, want %q", env.Preopens, want)
		}
		if len(env.Args) != 1 || env.Args[0] != "everything" || len(env.Env) != 0 {
			t.Errorf("argv = %q, env = %q; want one argument and no environment", env.Args, env.Env)
		}
		if env.Asset != "asset text" || env.Skill != "skill text" || env.PackageWritable {
			t.Errorf("asset %q, skill %q, package writable %v", env.Asset, env.Skill, env.PackageWritable)
		}
		if env.Allocate != int(wasi.ENOTSUP) || env.AcceptPreopen != int(wasi.ENOTSOCK) || env.AcceptNone != int(wasi.EBADF) {
			t.Errorf("fd_allocate = %d (want ENOTSUP), sock_accept = %d, %d (want ENOTSOCK, EBADF)", env.Allocate, env.AcceptPreopen, env.AcceptNone)
		}
		meta := env.Meta
		info, _ := meta["io.modelcontextprotocol/clientInfo"].(map[string]any)
		caps, hasCaps := meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
		if meta["io.modelcontextprotocol/protocolVersion"] != ProtocolVersion || info["name"] != "kobako" || info["version"] != "test" || !hasCaps || len(caps) != 0 {
			t.Errorf("_meta = %v", meta)
		}
		// Ids are strings, fresh on every call.
		res2, err := p.Call(ctx, "env", nil, CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var env2 struct{ ID json.RawMessage }
		must(t, json.Unmarshal([]byte(res2.Content[0].Text), &env2))
		if env.ID[0] != '"' || string(env.ID) == string(env2.ID) {
			t.Errorf("ids %s and %s: want two different strings", env.ID, env2.ID)
		}
	})
	t.Run("argv follows Manifest.Name", func(t *testing.T) {
		// argv is built once at Load; an embedder that renames the package afterwards still
		// gives the new name.
		defer func(name string) { p.Manifest.Name = name }(p.Manifest.Name)
		p.Manifest.Name = "renamed"
		res, err := p.Call(ctx, "env", nil, CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content[0].Text, `"args":["renamed"]`) {
			t.Errorf("env = %s", res.Content[0].Text)
		}
	})
	t.Run("no data volume by default", func(t *testing.T) {
		res, err := p.Call(ctx, "env", nil, CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content[0].Text, `"preopens":["/volume/tmp","/package"]`) {
			t.Errorf("env = %s", res.Content[0].Text)
		}
	})
	t.Run("write budget", func(t *testing.T) {
		vol := t.TempDir()
		res, err := p.Call(ctx, "write", json.RawMessage(`{"path":"/volume/tmp/big","bytes":5000}`), CallOptions{Volume: vol, WriteBudget: 4096})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(res.Content[0].Text), "quota") {
			t.Errorf("write over budget: %q, want EDQUOT", res.Content[0].Text)
		}
		res, err = p.Call(ctx, "write", json.RawMessage(`{"path":"/volume/tmp/small","bytes":1000}`), CallOptions{Volume: vol, WriteBudget: 4096})
		if err != nil || res.Content[0].Text != "ok" {
			t.Fatalf("write under budget: %v %+v", err, res)
		}
		if fi, err := os.Stat(filepath.Join(vol, "small")); err != nil || fi.Size() != 1000 {
			t.Errorf("written file: %v %v", fi, err)
		}
	})
}

// TestCall_Concurrent: 32 calls at once on one loaded package, with discoveries and calls of a Go
// package beside them (run with -race).
func TestCall_Concurrent(t *testing.T) {
	tiny := loadFixture(t, "tiny", nil)
	gop := loadFixture(t, "everything", nil)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	call := func(p *Package, tool, args, want string) {
		defer wg.Done()
		res, err := p.Call(context.Background(), tool, json.RawMessage(args), CallOptions{})
		if err == nil && (len(res.Content) != 1 || res.Content[0].Text != want) {
			err = fmt.Errorf("content = %+v", res.Content)
		}
		errs <- err
	}
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go call(tiny, "greet", `{"name":"x"}`, "hello from wat")
	}
	for i := 0; i < 3; i++ {
		wg.Add(2)
		go call(gop, "greet", fmt.Sprintf(`{"name":"n%d"}`, i), fmt.Sprintf("Hello, n%d!", i))
		go func() {
			defer wg.Done()
			_, err := tiny.Discover(context.Background())
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
