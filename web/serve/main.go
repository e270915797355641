// Command serve builds kobako's browser build and serves its page: run it from a checkout with
//
//	go run ./web/serve --addr 127.0.0.1:8080
//
// then open http://127.0.0.1:8080/. It builds ./web with the go command on PATH (GOOS=js
// GOARCH=wasm), serves that go's wasm_exec.js beside it (the two must come from one Go release),
// the page and its scripts from the checkout's web directory, and the embedded example ABI 1
// package at /examples/hello.zip. It is a development server: it binds where --addr says and
// rebuilds only when restarted.
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kobako/kobako/subako/example"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "`HOST:PORT` to serve on")
	goCmd := flag.String("go", "go", "the go `COMMAND` that builds kobako.wasm")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "serve: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "kobako-serve-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	start := time.Now()
	b, err := Build(ctx, *goCmd, tmp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "serve: %v\n", err)
		os.Exit(1)
	}
	h, err := NewHandler(b)
	if err != nil {
		fmt.Fprintf(os.Stderr, "serve: %v\n", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "serve: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("built kobako.wasm in %.1fs; serving http://%s/\n", time.Since(start).Seconds(), ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// Built is what Build made and found: the wasm, the wasm_exec.js of the same Go, and the page's
// directory.
type Built struct {
	Wasm     string // kobako.wasm
	WasmExec string // $(go env GOROOT)/lib/wasm/wasm_exec.js
	WebDir   string // the checkout's web directory
}

// Build compiles ./web for GOOS=js GOARCH=wasm into dir/kobako.wasm with goCmd, from the module
// the current directory is in.
func Build(ctx context.Context, goCmd, dir string) (Built, error) {
	out := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s %s: %v\n%s", goCmd, strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(b)), nil
	}
	webDir, err := out("list", "-f", "{{.Dir}}", "github.com/kobako/kobako/web")
	if err != nil {
		return Built{}, fmt.Errorf("finding the web directory (run serve from a checkout of kobako): %w", err)
	}
	goroot, err := out("env", "GOROOT")
	if err != nil {
		return Built{}, err
	}
	b := Built{Wasm: filepath.Join(dir, "kobako.wasm"), WasmExec: filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"), WebDir: webDir}
	if _, err := os.Stat(b.WasmExec); err != nil {
		return Built{}, fmt.Errorf("wasm_exec.js of %s: %w (serve needs Go 1.24 or later)", goCmd, err)
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags=-s -w", "-o", b.Wasm, ".")
	cmd.Dir = webDir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return Built{}, fmt.Errorf("building kobako.wasm: %v\n%s", err, msg)
	}
	return b, nil
}

// The page's files: name served at /name -> content type. The page is index.html at /.
var static = map[string]string{
	"index.html":   "text/html; charset=utf-8",
	"kobako.js":    "text/javascript; charset=utf-8",
	"worker.js":    "text/javascript; charset=utf-8",
	"memfs.js":     "text/javascript; charset=utf-8",
	"wasm_exec.js": "text/javascript; charset=utf-8",
	"kobako.wasm":  "application/wasm",
}

// NewHandler serves the page. Every answer carries Cross-Origin-Opener-Policy and
// Cross-Origin-Embedder-Policy, which make the page and its workers cross-origin isolated (what
// SharedArrayBuffer, precise timers and memory measurement need); a plugin's requests are CORS
// requests, which that allows. kobako.wasm is application/wasm, which
// WebAssembly.compileStreaming requires, and every script is a JavaScript type, which module
// scripts and workers require.
func NewHandler(b Built) (http.Handler, error) {
	files := map[string]string{}
	for name := range static {
		switch name {
		case "kobako.wasm":
			files[name] = b.Wasm
		case "wasm_exec.js":
			files[name] = b.WasmExec
		default:
			files[name] = filepath.Join(b.WebDir, name)
		}
		if _, err := os.Stat(files[name]); err != nil {
			return nil, err
		}
	}
	hello, err := zipFS(example.FS())
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "index.html"
		}
		if name == "examples/hello.zip" {
			h.Set("Content-Type", "application/zip")
			http.ServeContent(w, r, "hello.zip", time.Time{}, bytes.NewReader(hello))
			return
		}
		ct, ok := static[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f, err := os.Open(files[name])
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Content-Type", ct)
		http.ServeContent(w, r, name, fi.ModTime(), f)
	}), nil
}

// zipFS zips the regular files of fsys (a package directory) into a package zip.
func zipFS(fsys fs.FS) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, errors.Join(err)
	}
	return buf.Bytes(), nil
}
