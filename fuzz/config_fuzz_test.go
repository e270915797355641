package fuzz

import (
	"errors"
	"testing"

	"github.com/kobako/kobako/mcpserve"
	"github.com/kobako/kobako/zeroclaw"
)

// FuzzConfigFile reads any bytes as kobako's config file, as `kobako plugin` reads its [plugins]
// and `kobako mcp` its [mcp]. Nothing may panic or hang; an error is the package's config error;
// and what is accepted holds limits a call can run under.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		"[plugins]\nenabled = true\nsignature_mode = \"strict\"\ntrusted_publisher_keys = [\"" + "ab" + "\"]\n[plugins.limits]\ncall_fuel = 1000\n",
		"[[plugins.entries]]\nname = \"zpi1_x\"\negress_hosts = [\"api.example.com\"]\nconfig = { a = \"b\" }\n",
		"[mcp]\nallow_hosts = [\"*.example.com\"]\nmax_concurrent_calls = 3\n[mcp.limits]\ntimeout_ms = 5\n[mcp.http]\nstrict_protocol_header = true\n",
		"[[mcp.packages]]\npath = \"~/x.zip\"\nname = \"w\"\n[mcp.packages.limits]\nfuel = 0\n",
		"a = [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n",
		"[mcp.limits]\ntimeout_ms = -1\n",
		"x = { y = { z = { w = 1 } } }\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg := zeroclaw.DefaultConfig()
		if err := zeroclaw.ParseConfig(raw, cfg); err != nil {
			if !errors.Is(err, zeroclaw.ErrConfig) {
				t.Fatalf("zeroclaw.ParseConfig error is not ErrConfig: %v", err)
			}
		} else if err := cfg.Plugins.Limits.Validate(); err != nil {
			t.Fatalf("accepted [plugins.limits] that do not validate: %v", err)
		}
		mc, err := mcpserve.ParseConfig(raw, "/base")
		if err != nil {
			return
		}
		d := mc.Defaults()
		if err := d.Limits.Validate(); err != nil {
			t.Fatalf("accepted [mcp.limits] that do not validate: %v", err)
		}
		for _, p := range mc.Packages {
			if _, err := p.Spec(d); err != nil && !errors.Is(err, mcpserve.ErrConfig) {
				t.Fatalf("a package row's error is not ErrConfig: %v", err)
			}
		}
	})
}
