package sdk

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestVolumeURI(t *testing.T) {
	tests := []struct {
		path, uri string
	}{
		{"/volume/tmp/chart.png", "volume:///tmp/chart.png"},
		{"/volume/tmp/a b/ü?#%.png", "volume:///tmp/a%20b/%C3%BC%3F%23%25.png"},
		{"/volume/x", "volume:///x"},
		{"/volume", ""},
		{"/volume/", ""},
		{"/volumes/x", ""},
		{"volume/x", ""},
		{"/volume/tmp/../etc", ""},
		{"/volume/tmp//x", ""},
		{"/volume/./x", ""},
		{"/volume/tmp/", ""},
		{"/tmp/x", ""},
	}
	for _, tt := range tests {
		got, err := VolumeURI(tt.path)
		if tt.uri == "" {
			if !errors.Is(err, ErrNotVolumePath) {
				t.Errorf("%q: got %q, %v; want ErrNotVolumePath", tt.path, got, err)
			}
			continue
		}
		if err != nil || got != tt.uri {
			t.Errorf("%q: got %q, %v; want %q", tt.path, got, err, tt.uri)
		}
		back, err := VolumePath(got)
		if err != nil || back != tt.path {
			t.Errorf("%q: back %q, %v", got, back, err)
		}
	}
	for _, uri := range []string{"volume:///", "volume:///a/../b", "volume:///a%2Fb", "volume:///%zz", "file:///volume/a", "volume://host/a"} {
		if _, err := VolumePath(uri); !errors.Is(err, ErrNotVolumePath) {
			t.Errorf("VolumePath(%q) = %v", uri, err)
		}
	}
}

func TestVolumeLink(t *testing.T) {
	c, err := VolumeLink("/volume/tmp/picture one.png", "image/png")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	if string(b) != `{"type":"resource_link","mimeType":"image/png","uri":"volume:///tmp/picture%20one.png","name":"picture one.png"}` {
		t.Errorf("link %s", b)
	}
	if _, err := VolumeLink("/etc/passwd", ""); !errors.Is(err, ErrNotVolumePath) {
		t.Errorf("err = %v", err)
	}
}

func TestContentJSON(t *testing.T) {
	bad := []Content{
		{Type: "audio"},
		{Type: ContentImage, Data: []byte{1}},
		{Type: ContentResourceLink, Name: "x"},
	}
	for _, c := range bad {
		if _, err := json.Marshal(c); !errors.Is(err, ErrInvalidContent) {
			t.Errorf("%+v: err = %v", c, err)
		}
	}
	if b, _ := json.Marshal(Text("")); string(b) != `{"type":"text","text":""}` {
		t.Errorf("empty text %s", b)
	}
	badIn := []string{
		`{"type":"text"}`,
		`{"type":"text","text":"a","uri":"x"}`,
		`{"type":"image","data":"!!","mimeType":"image/png"}`,
		`{"type":"image","data":"AA=="}`,
		`{"type":"resource_link","uri":"x"}`,
		`{"type":"audio","data":"AA==","mimeType":"audio/wav"}`,
		`{"type":"text","text":"a","annotations":{}}`,
	}
	for _, s := range badIn {
		var c Content
		if err := json.Unmarshal([]byte(s), &c); !errors.Is(err, ErrInvalidContent) {
			t.Errorf("%s: err = %v", s, err)
		}
	}
}

func TestResultJSON(t *testing.T) {
	r := Result{StructuredContent: json.RawMessage(`[1]`)}
	if _, err := json.Marshal(r); err == nil {
		t.Error("array structuredContent accepted")
	}
	if b, _ := json.Marshal(Result{}); string(b) != `{"resultType":"complete","content":[]}` {
		t.Errorf("empty result %s", b)
	}
	for _, s := range []string{
		`{"resultType":"input_required","content":[]}`,
		`{"resultType":"complete"}`,
		`{"content":[],"structuredContent":"x"}`,
	} {
		var r Result
		if err := json.Unmarshal([]byte(s), &r); !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("%s: err = %v", s, err)
		}
	}
	var ok Result
	if err := json.Unmarshal([]byte(`{"content":[{"type":"text","text":"hi"}],"isError":true}`), &ok); err != nil || !ok.IsError {
		t.Errorf("missing resultType: %+v %v", ok, err)
	}
	if _, err := StructuredResult([]int{1}); err == nil {
		t.Error("StructuredResult accepted an array")
	}
	er := errorResult(errors.New("plain"))
	if !er.IsError || er.Content[0].Text != "plain" {
		t.Errorf("errorResult %+v", er)
	}
	if e := Errorf("n=%d", 3); e.Error() != "n=3" {
		t.Errorf("Errorf %v", e)
	}
}

func TestParseManifest(t *testing.T) {
	tests := []struct {
		in    string
		errIn string
	}{
		{`{"abi":1,"name":"hello","description":"Says hello."}`, ""},
		{`{"abi":2,"name":"hello","description":""}`, "abi is 2"},
		{`{"name":"hello","description":""}`, "abi is missing"},
		{`{"abi":1,"name":"","description":""}`, "name"},
		{`{"abi":1,"name":"a"}`, "description is missing"},
		{`{"abi":1,"name":"a","description":"","tools":[]}`, "unknown field"},
		{`[]`, "invalid package"},
	}
	for _, tt := range tests {
		m, err := ParseManifest([]byte(tt.in))
		if tt.errIn == "" {
			if err != nil || m.Name != "hello" {
				t.Errorf("%s: %+v %v", tt.in, m, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.errIn) || !errors.Is(err, ErrInvalidPackage) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.errIn)
		}
	}
}
