// Command fetch is an ABI 1 function package that reads web pages through the host's subako_http
// import: get returns a page's status, type and text; save stores a body under /volume/tmp.
package main

import (
	"context"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/kobako/kobako/subako/sdk"
)

type getIn struct {
	URL      string `json:"url" jsonschema:"description=An https URL.,format=uri"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"description=Longest text to return (default 4000).,minimum=0"`
}

type getOut struct {
	Status      int    `json:"status" jsonschema:"description=HTTP status code."`
	ContentType string `json:"content_type,omitempty" jsonschema:"description=The content-type header."`
	Text        string `json:"text" jsonschema:"description=The body text (possibly cut short)."`
	Truncated   bool   `json:"truncated,omitempty" jsonschema:"description=Whether text was cut short."`
}

func get(ctx context.Context, in getIn) (getOut, error) {
	if !strings.HasPrefix(in.URL, "https://") {
		return getOut{}, sdk.Errorf("url must start with https://, got %q", in.URL)
	}
	max := in.MaxChars
	if max <= 0 {
		max = 4000
	}
	resp, err := sdk.Do(ctx, &sdk.Request{URL: in.URL, Headers: map[string]string{"accept": "text/*, application/json"}})
	if err != nil {
		return getOut{}, fail(err)
	}
	out := getOut{Status: resp.Status, ContentType: resp.Headers["content-type"], Text: resp.Body.Text}
	if utf8.RuneCountInString(out.Text) > max {
		out.Text, out.Truncated = string([]rune(out.Text)[:max]), true
	}
	return out, nil
}

type saveIn struct {
	URL  string `json:"url" jsonschema:"description=An https URL.,format=uri"`
	Name string `json:"name" jsonschema:"description=File name to save under /volume/tmp.,pattern=^[^/]+$"`
}

type saveOut struct {
	Status int    `json:"status" jsonschema:"description=HTTP status code."`
	Path   string `json:"path" jsonschema:"description=Where the body was saved."`
	Bytes  int64  `json:"bytes" jsonschema:"description=Size of the saved body."`
}

func save(ctx context.Context, in saveIn) (saveOut, error) {
	if in.Name == "" || strings.Contains(in.Name, "/") || in.Name == "." || in.Name == ".." {
		return saveOut{}, sdk.Errorf("name must be a plain file name, got %q", in.Name)
	}
	p := path.Join("/volume/tmp", in.Name)
	resp, err := sdk.Do(ctx, &sdk.Request{URL: in.URL, Output: sdk.FileOutput(p)})
	if err != nil {
		return saveOut{}, fail(err)
	}
	return saveOut{Status: resp.Status, Path: resp.Body.Path, Bytes: resp.Body.Bytes}, nil
}

// fail words a subako_http error for the model, with a hint where one helps.
func fail(err error) error {
	switch sdk.KindOf(err) {
	case sdk.KindTooLarge, sdk.KindNotText:
		return sdk.Errorf("%v (use the save tool for large or binary bodies)", err)
	}
	return err
}

var pkg = &sdk.Package{
	Name:        "fetch",
	Description: "Reads web pages and downloads files over HTTPS.",
	Version:     "1.0.0",
	Tools: []sdk.ToolDef{
		sdk.Tool("get", "Fetch an https URL and return its status and text.", get),
		sdk.Tool("save", "Download an https URL into /volume/tmp.", save),
	},
}

func main() { pkg.Main() }
