package preview2

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/egress"
)

// BenchmarkHTTPHostPath moves 1 MiB each way through wasi:http's host side (outgoing-request,
// the body pipe, handle, the incoming body's bounded buffer and input-stream reads of 64 KiB, as
// a guest would call them) against a loopback TLS server, and through net/http alone, in one
// run: what the wasi:http plumbing adds, without a guest and without the egress policy (see
// bench/ for both).
func BenchmarkHTTPHostPath(b *testing.B) {
	const size = 1 << 20
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			n, _ := io.Copy(io.Discard, r.Body)
			io.WriteString(w, strconv.FormatInt(n, 10))
			return
		}
		w.Write(body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	tr := srv.Client().Transport
	h, err := NewHost(Config{MaxHandles: 1 << 16}, WithHTTP(HTTPConfig{Send: func(ctx context.Context, req *http.Request, _ egress.SendOptions) (*http.Response, error) {
		return tr.RoundTrip(req)
	}}))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	fns, rfns := httpRequestFuncs(), httpResponseFuncs()
	bodyOf := fns["[method]outgoing-request.body"].(func(context.Context, *Host, abi.Borrow[*outgoingRequest]) (abi.Result[abi.Own[*outgoingBody], struct{}], error))
	writeOf := fns["[method]outgoing-body.write"].(func(context.Context, *Host, abi.Borrow[*outgoingBody]) (abi.Result[abi.Own[*OutputStream], struct{}], error))
	finish := fns["[static]outgoing-body.finish"].(func(context.Context, *Host, abi.Own[*outgoingBody], *abi.Own[*fields]) (abi.Result[struct{}, httpErrorCode], error))
	consume := rfns["[method]incoming-response.consume"].(func(context.Context, *Host, abi.Borrow[*incomingResponse]) (abi.Result[abi.Own[*incomingBody], struct{}], error))
	streamOf := rfns["[method]incoming-body.stream"].(func(context.Context, *Host, abi.Borrow[*incomingBody]) (abi.Result[abi.Own[*InputStream], struct{}], error))
	exchange := func(b *testing.B, post bool) int {
		fr, _ := h.fieldsFromList(nil)
		req, _ := h.newOutgoingRequest(fr.Ok)
		r, _ := borrowed(h, lend(req))
		r.scheme, r.authority, r.path = &scheme{HTTPS: true}, &u.Host, strp("/")
		var ob abi.Own[*outgoingBody]
		var os uint32
		if post {
			r.method = method{Post: true}
			bo, _ := bodyOf(ctx, h, lend(req))
			ob = bo.Ok
			so, _ := writeOf(ctx, h, lend(ob))
			os = so.Ok.Rep
		}
		res, err := h.handle(ctx, req, nil)
		if err != nil || res.IsErr {
			b.Fatalf("handle %v %+v", err, res)
		}
		if post {
			for sent := 0; sent < size; {
				cw, _ := h.checkWrite(os)
				if cw.Ok == 0 {
					pr, _ := h.subscribeOut(os)
					p, _ := get[*Pollable](h, pr)
					h.wait(ctx, []*Pollable{p})
					drop[*Pollable](h, pr)
					continue
				}
				n := min(int(cw.Ok), size-sent)
				h.write(ctx, os, body[sent:sent+n], false)
				sent += n
			}
			drop[*OutputStream](h, os)
			finish(ctx, h, ob, nil)
		}
		f, _ := borrowed(h, lend(res.Ok))
		h.wait(ctx, []*Pollable{{src: f}})
		rr, _ := h.futureGet(lend(res.Ok))
		ir := rr.Ok.Ok
		ib, _ := consume(ctx, h, lend(ir))
		st, _ := streamOf(ctx, h, lend(ib.Ok))
		n := 0
		for {
			r, err := h.read(ctx, st.Ok.Rep, MaxReadChunk, true)
			if err != nil {
				b.Fatal(err)
			}
			if r.IsErr {
				break
			}
			n += len(r.Ok)
		}
		drop[*InputStream](h, st.Ok.Rep)
		drop[*incomingBody](h, ib.Ok.Rep)
		drop[*incomingResponse](h, ir.Rep)
		drop[*futureResponse](h, res.Ok.Rep)
		return n
	}
	b.Run("op=download-1MiB/client=wasi-http-host", func(b *testing.B) {
		for b.Loop() {
			if n := exchange(b, false); n != size {
				b.Fatalf("read %d", n)
			}
		}
	})
	b.Run("op=download-1MiB/client=net-http", func(b *testing.B) {
		for b.Loop() {
			resp, err := srv.Client().Get(srv.URL)
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n != size {
				b.Fatalf("read %d", n)
			}
		}
	})
	b.Run("op=upload-1MiB/client=wasi-http-host", func(b *testing.B) {
		for b.Loop() {
			if n := exchange(b, true); n != len(strconv.Itoa(size)) {
				b.Fatalf("answer of %d bytes", n)
			}
		}
	})
	b.Run("op=upload-1MiB/client=net-http", func(b *testing.B) {
		for b.Loop() {
			resp, err := srv.Client().Post(srv.URL, "text/plain", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
