package egress

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestCleanRequestHeader(t *testing.T) {
	in := []Field{
		{"accept", "application/json"},
		{"x-trace", "a\tb"},
		{"host", "evil.example"},
		{"content-length", "5"},
		{"connection", "keep-alive, x-trace"},
		{"transfer-encoding", "chunked"},
		{"upgrade", "websocket"},
		{"keep-alive", "timeout=5"},
		{"te", "trailers"},
		{"trailer", "x-b"},
		{"proxy-authorization", "Basic x"},
		{"proxy-connection", "keep-alive"},
		{"proxy-anything", "1"},
		{"x-proxy", "kept"},
		{"accept", "text/plain"},
	}
	got, err := cleanRequestHeader(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"accept", "application/json"}, {"x-trace", "a\tb"}, {"x-proxy", "kept"}, {"accept", "text/plain"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestCleanRequestHeader_Errors(t *testing.T) {
	many := make([]Field, MaxHeaderFields+1)
	for i := range many {
		many[i] = Field{"x-a", "1"}
	}
	tests := []struct {
		name string
		h    []Field
		want string
	}{
		{"upper case", []Field{{"Accept", "x"}}, "must be lower-case"},
		{"upper-case connection header is still an error", []Field{{"Host", "x"}}, "must be lower-case"},
		{"empty name", []Field{{"", "x"}}, "not a valid HTTP token"},
		{"space in name", []Field{{"x a", "x"}}, "not a valid HTTP token"},
		{"colon in name", []Field{{"x:a", "x"}}, "not a valid HTTP token"},
		{"non-ASCII name", []Field{{"x-é", "x"}}, "not a valid HTTP token"},
		{"CRLF in value", []Field{{"x-a", "1\r\nhost: evil"}}, "control characters"},
		{"LF in value", []Field{{"x-a", "1\nx"}}, "control characters"},
		{"NUL in value", []Field{{"x-a", "1\x00"}}, "control characters"},
		{"DEL in value", []Field{{"x-a", "1\x7f"}}, "control characters"},
		{"too many", many, "more than"},
		{"too big", []Field{{"x-a", strings.Repeat("a", MaxHeaderBytes)}}, "exceed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cleanRequestHeader(tt.h)
			if k, _ := KindOf(err); k != KindInvalidRequest || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want invalid_request containing %q", err, tt.want)
			}
		})
	}
}

func TestResponseHeader(t *testing.T) {
	h := http.Header{
		"Content-Type": {"application/json"},
		"Set-Cookie":   {"a=1", "b=2"},
		"X-Multi":      {"1", "2"},
		"x-lower":      {"raw"},
		"X-Lower":      {"canon"},
	}
	got := responseHeader(h)
	want := []Field{
		{"content-type", "application/json"},
		{"set-cookie", "a=1"}, {"set-cookie", "b=2"},
		{"x-lower", "canon"}, {"x-lower", "raw"},
		{"x-multi", "1"}, {"x-multi", "2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	m := HeaderMap(got)
	wantMap := map[string]string{"content-type": "application/json", "set-cookie": "a=1\nb=2", "x-lower": "canon, raw", "x-multi": "1, 2"}
	if !reflect.DeepEqual(m, wantMap) {
		t.Fatalf("HeaderMap = %v, want %v", m, wantMap)
	}
}
