package subako

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"testing/fstest"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/engine"
	"github.com/kobako/kobako/subako/wire"
	"github.com/kobako/kobako/wasi"
)

// DefaultWriteBudget is what a call may write to files (its volume and subako_http file output
// together) when CallOptions.WriteBudget is 0.
const DefaultWriteBudget = 1 << 30

// DefaultMaxImageBytes caps an image file that a resource_link names when
// CallOptions.MaxImageBytes is 0.
const DefaultMaxImageBytes = 20 << 20

// CallOptions are what the embedder gives one call. The zero value is a call with a fresh,
// empty scratch volume, no data volume, no skills, no network and the default limits.
type CallOptions struct {
	// Limits bound the call's instance; the zero value means DefaultCallLimits. Limits.Deadline
	// is the call's wall-clock time, the 1 s exit grace included.
	Limits engine.Limits
	// Volume is the host directory mounted at /volume/tmp; empty means a fresh temporary directory
	// removed after the call.
	Volume string
	// Data is the host directory mounted at /volume/data; empty means none.
	Data string
	// Skills are mounted read-only at /skills/<name>, /skills listing their names.
	Skills []Skill
	// WriteBudget caps the bytes the call writes to files; 0 means DefaultWriteBudget.
	WriteBudget int64
	// Network is the egress policy of subako_http; nil admits no host.
	Network *egress.Policy
	// Send, if not nil, sends every subako_http request of the call instead of the policy
	// sender (egress.NewSender over Config.HTTPClient and Network, which it then replaces):
	// the same hook wasi:http takes as wasi.HTTPConfig.Send, so one function can audit,
	// rate-limit or veto the requests of both plugin protocols. It gets the guest's request
	// with SendOptions.FollowRedirects, Timeout (timeout_ms) and MaxResponseBytes (the inline
	// cap, or -1 for file output) set. An *egress.Error it returns, egress.Deny's veto
	// included, reaches the guest as {"error":{"kind":…}} of its Kind; any other error as kind
	// connection. The inline cap and the UTF-8 check apply to its responses too.
	Send egress.Sender
	// MaxImageBytes caps an image read for a volume resource_link; 0 means DefaultMaxImageBytes.
	MaxImageBytes int64
}

// Skill is a skill directory the calling agent provides.
type Skill struct {
	// Name is the directory name under /skills: 1 to 64 characters of a-z, 0-9, '_' and '-'.
	Name string
	// Dir is a host directory; FS is used when Dir is empty.
	Dir string
	FS  fs.FS
}

// callDriver sends one tools/call and keeps its result.
type callDriver struct {
	tool    string
	args    json.RawMessage
	result  json.RawMessage
	decoded *callResult // the result, decoded (by predecode, or by answer)
}

// callResult is a wire.CallToolResult as the host reads it, with resultType as session.handle
// checks it (absent or null is nil): one decode serves the resultType check, the shape check and
// the mapping. It decodes without error exactly when both the resultType check's decode and a
// wire.CallToolResult's do (its other members take any JSON value).
type callResult struct {
	ResultType        *string           `json:"resultType"`
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// predecode decodes result for both the resultType check and answer. On false, session.handle
// takes the general path, whose separate decodes report what is wrong exactly as they always did.
func (d *callDriver) predecode(result json.RawMessage) (*string, bool) {
	var r callResult
	if json.Unmarshal(result, &r) != nil {
		return nil, false
	}
	d.decoded = &r
	return r.ResultType, true
}

func (d *callDriver) first() outgoing {
	// name last: see session.send.
	return outgoing{method: wire.MethodToolsCall, params: wire.CallToolParams{Arguments: d.args, Name: d.tool}}
}

// answer keeps the result after checking its shape, so that a malformed one is reported like any
// other crash, with the module's stderr.
func (d *callDriver) answer(result json.RawMessage) (*outgoing, error) {
	r := d.decoded
	if r == nil {
		var w wire.CallToolResult
		if err := json.Unmarshal(result, &w); err != nil {
			return nil, &CrashError{Rule: RuleMalformedResult, Detail: fmt.Sprintf("not a CallToolResult: %v", err)}
		}
		r = &callResult{Content: w.Content, StructuredContent: w.StructuredContent, IsError: w.IsError}
		d.decoded = r
	}
	if r.Content == nil {
		return nil, &CrashError{Rule: RuleMalformedResult, Detail: "the CallToolResult has no content array"}
	}
	d.result = result
	return nil, nil
}

// tmpVolume is httpState.volumes of a call without a data volume; appending to it (with its
// capacity of 1) copies it.
var tmpVolume = []string{"/volume/tmp"}

// Call runs one tools/call of tool with args (a JSON object; nil means {}) in a fresh instance:
// argv is the package name alone, the environment is empty, and the preopens are /volume/tmp,
// /volume/data (when opts.Data is set), /package (when the package has assets), then /skills and
// each /skills/<name>. When the package was discovered, tool must be one it lists.
//
// The result is the module's CallToolResult mapped for a model (see Result); an isError result is
// an ordinary result. A crash is a *CrashError (errors.Is(err, ErrCrash)).
func (p *Package) Call(ctx context.Context, tool string, args json.RawMessage, opts CallOptions) (*Result, error) {
	if tools := p.Tools(); tools != nil {
		found := false
		for _, t := range tools {
			found = found || t.Name == tool
		}
		if !found {
			return nil, fmt.Errorf("subako: call: %w: %q is not one of the package's tools", ErrUnknownTool, tool)
		}
	}
	if args == nil {
		args = json.RawMessage("{}")
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, fmt.Errorf("subako: call: %w: arguments must be a JSON object", ErrOptions)
	}
	var compact bytes.Buffer
	json.Compact(&compact, args)
	limits := opts.Limits
	if limits == (engine.Limits{}) {
		limits = DefaultCallLimits()
	}
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("subako: call: %w: %v", ErrOptions, err)
	}
	wb := opts.WriteBudget
	if wb == 0 {
		wb = DefaultWriteBudget
	}
	budget, err := wasi.NewBudget(wb, 0)
	if err != nil {
		return nil, fmt.Errorf("subako: call: %w: write budget: %v", ErrOptions, err)
	}
	volume := opts.Volume
	if volume == "" {
		dir, err := os.MkdirTemp("", "kobako-volume-")
		if err != nil {
			return nil, fmt.Errorf("subako: call: scratch volume: %w", err)
		}
		defer os.RemoveAll(dir)
		volume = dir
	}
	cfg := wasi.Config{Budget: budget}
	vols := map[string]string{"tmp": volume}
	cfg.Preopens = append(cfg.Preopens, wasi.Preopen{GuestPath: "/volume/tmp", HostDir: volume})
	hs := &httpState{send: opts.Send, policy: opts.Network, volumes: tmpVolume[:1:1]}
	if opts.Data != "" {
		vols["data"] = opts.Data
		cfg.Preopens = append(cfg.Preopens, wasi.Preopen{GuestPath: "/volume/data", HostDir: opts.Data})
		hs.volumes = append(hs.volumes, "/volume/data")
	}
	if p.assets != nil {
		cfg.Preopens = append(cfg.Preopens, wasi.Preopen{GuestPath: "/package", FS: p.assets, ReadOnly: true})
	}
	if len(opts.Skills) > 0 {
		root := fstest.MapFS{}
		var mounts []wasi.Preopen
		for _, sk := range opts.Skills {
			if !validName(sk.Name) {
				return nil, fmt.Errorf("subako: call: %w: skill name %q must be 1 to 64 characters of a-z, 0-9, _ and -", ErrOptions, sk.Name)
			}
			if _, dup := root[sk.Name]; dup {
				return nil, fmt.Errorf("subako: call: %w: skill %q is given twice", ErrOptions, sk.Name)
			}
			root[sk.Name] = &fstest.MapFile{Mode: fs.ModeDir | 0o555}
			m := wasi.Preopen{GuestPath: "/skills/" + sk.Name, ReadOnly: true}
			switch {
			case sk.Dir != "":
				m.HostDir = sk.Dir
			case sk.FS != nil:
				m.FS = sk.FS
			default:
				return nil, fmt.Errorf("subako: call: %w: skill %q has neither Dir nor FS", ErrOptions, sk.Name)
			}
			mounts = append(mounts, m)
		}
		cfg.Preopens = append(cfg.Preopens, wasi.Preopen{GuestPath: "/skills", FS: root, ReadOnly: true})
		cfg.Preopens = append(cfg.Preopens, mounts...)
	}
	d := &callDriver{tool: tool, args: compact.Bytes()}
	if err := p.run(ctx, runSpec{limits: limits, wasi: cfg, http: hs}, d); err != nil {
		return nil, err
	}
	maxImage := opts.MaxImageBytes
	if maxImage == 0 {
		maxImage = DefaultMaxImageBytes
	}
	return mapDecoded(d.result, d.decoded, vols, maxImage), nil
}
