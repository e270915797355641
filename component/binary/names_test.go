package binary

import (
	"errors"
	"testing"
)

func TestParseName(t *testing.T) {
	tests := []struct {
		in   string
		want Name
	}{
		{"foo", Name{Kind: NameLabel, Label: "foo"}},
		{"get-JSON", Name{Kind: NameLabel, Label: "get-JSON"}},
		{"a1-2-3", Name{Kind: NameLabel, Label: "a1-2-3"}},
		{"A11-4CR0NYMS", Name{Kind: NameLabel, Label: "A11-4CR0NYMS"}},
		{"[constructor]file", Name{Kind: NameConstructor, Label: "file"}},
		{"[method]output-stream.blocking-write", Name{Kind: NameMethod, Label: "output-stream", Member: "blocking-write"}},
		{"[static]counter.merge", Name{Kind: NameStatic, Label: "counter", Member: "merge"}},
		{"wasi:io/streams", Name{Kind: NameInterface, Namespace: "wasi", Package: "io", Interface: "streams"}},
		{"wasi:io/streams@0.2.0", Name{Kind: NameInterface, Namespace: "wasi", Package: "io", Interface: "streams", Version: "0.2.0"}},
		{"wasi:http/types@0.2.0-rc-2023-12-05", Name{Kind: NameInterface, Namespace: "wasi", Package: "http", Interface: "types", Version: "0.2.0-rc-2023-12-05"}},
		{"my-org:my-pkg/IFACE@1.2.3+build.7", Name{Kind: NameInterface, Namespace: "my-org", Package: "my-pkg", Interface: "IFACE", Version: "1.2.3+build.7"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseName(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Raw = tt.in
			if got != tt.want {
				t.Errorf("ParseName(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseName_Errors(t *testing.T) {
	tests := []struct {
		in          string
		unsupported bool
	}{
		{"", false},
		{"1-2-3", false},
		{"foo-", false},
		{"-foo", false},
		{"foo--bar", false},
		{"fooBar", false},
		{"foo_bar", false},
		{"föo", false},
		{"[constructor]", false},
		{"[method]r", false},
		{"[method]r.", false},
		{"[static].f", false},
		{"[destructor]r", false},
		{"wasi:io", false},
		{"wasi:io/", false},
		{"Wasi:io/streams", false},
		{"wasi:IO/streams", false},
		{"wasi:io/streams@", false},
		{"wasi:io/streams@0.2", false}, // a canonical version needs a versionsuffix: rejected by checkVersion
		{"wasi:io/streams@01.2.3", false},
		{"wasi:io/streams@1.2.3-", false},
		{"wasi:io/streams@1.2.3-01", false},
		{"wasi:io/streams@x.y.z", false},
		{"a:b:c/d", true},
		{"a:b/c/d", true},
		{"[async]f", true},
		{"[async method]r.m", true},
		{"locked-dep=<a:b>", true},
		{"url=<https://example.com>", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			n, err := ParseName(tt.in)
			if err == nil {
				err = checkVersion(n)
			}
			if err == nil {
				t.Fatalf("ParseName(%q) = %+v, want an error", tt.in, n)
			}
			if got := errors.Is(err, ErrUnsupported); got != tt.unsupported {
				t.Errorf("ParseName(%q) error %v: unsupported = %v, want %v", tt.in, err, got, tt.unsupported)
			}
		})
	}
}

func TestUniqueKey(t *testing.T) {
	// Explainer.md, "Name Uniqueness": these are strongly unique among themselves...
	distinct := []string{"foo", "foo-bar", "[constructor]foo", "[method]foo.bar", "[static]foo.baz", "foo:bar/baz"}
	seen := map[string]string{}
	for _, s := range distinct {
		n, err := ParseName(s)
		if err != nil {
			t.Fatal(err)
		}
		k := uniqueKey(n)
		if prev, dup := seen[k]; dup {
			t.Errorf("%q and %q collide as %q", s, prev, k)
		}
		seen[k] = s
	}
	// ...and each of these collides with one of them.
	for _, s := range []string{"FOO", "foo-BAR", "[constructor]FOO", "[method]foo.BAR", "[static]foo.bar", "[method]foo.baz", "[method]foo.foo", "[static]foo-BAR.FOO-bar", "foo:bar/BAZ"} {
		n, err := ParseName(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := seen[uniqueKey(n)]; !dup {
			t.Errorf("%q (key %q) should collide", s, uniqueKey(n))
		}
	}
}

func TestParseSemver(t *testing.T) {
	for in, want := range map[string]Semver{
		"0.2.0":                {0, 2, 0, "", ""},
		"1.22.333-rc.1+b.2":    {1, 22, 333, "rc.1", "b.2"},
		"0.0.1-alpha-beta.0.x": {0, 0, 1, "alpha-beta.0.x", ""},
	} {
		got, err := ParseSemver(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseSemver(%q) = %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"1", "1.2", "1.2.3.4", "v1.2.3", "1.02.3", "1.2.3-", "1.2.3+", "1.2.3-a..b", "99999999999999999999.0.0"} {
		if _, err := ParseSemver(in); err == nil {
			t.Errorf("ParseSemver(%q) accepted", in)
		}
	}
}
