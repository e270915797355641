//go:build js

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/web/host"
)

// pluginsDir is where plugins are written, in the worker's in-memory file system (memfs.js).
const pluginsDir = "/kobako"

// bridge holds the worker's host and the handles it opened, by id.
type bridge struct {
	h       *host.Host
	mu      sync.Mutex
	handles map[int]*host.Handle
	next    int
}

// main installs globalThis.kobakoGo (the functions worker.js calls, each answering a Promise)
// and tells worker.js it is there; then it waits for calls forever.
func main() {
	h, err := host.New(context.Background(), host.Config{Dir: pluginsDir, Egress: egress.Options{Fetch: true}})
	ready := js.Global().Get("kobakoGoReady")
	if err != nil {
		ready.Invoke(err.Error())
		return
	}
	b := &bridge{h: h, handles: map[int]*host.Handle{}}
	api := js.Global().Get("Object").New()
	api.Set("openPackage", js.FuncOf(b.openPackage))
	api.Set("openPlugin", js.FuncOf(b.openPlugin))
	api.Set("call", js.FuncOf(b.call))
	api.Set("close", js.FuncOf(b.close))
	js.Global().Set("kobakoGo", api)
	ready.Invoke(js.Null())
	select {}
}

// promise runs f on its own goroutine (a js.FuncOf must not block) and settles a Promise with its
// answer: a JSON text to resolve with, or an error to reject with (an object of message, kind and
// what a failed call used).
func promise(f func() (any, error)) js.Value {
	var exec js.Func
	exec = js.FuncOf(func(_ js.Value, args []js.Value) any {
		exec.Release()
		resolve, reject := args[0], args[1]
		go func() {
			v, err := f()
			if err != nil {
				reject.Invoke(errorValue(err))
				return
			}
			b, jerr := json.Marshal(v)
			if jerr != nil {
				reject.Invoke(errorValue(jerr))
				return
			}
			resolve.Invoke(string(b))
		}()
		return nil
	})
	return js.Global().Get("Promise").New(exec)
}

// errorValue is the object a rejected Promise carries; worker.js posts it as it is.
func errorValue(err error) js.Value {
	o := js.Global().Get("Object").New()
	o.Set("message", err.Error())
	o.Set("kind", host.ErrorKind(err))
	var ce *host.CallError
	if errors.As(err, &ce) {
		o.Set("fuelConsumed", float64(ce.FuelConsumed))
		o.Set("ms", ce.Ms)
		logs, _ := json.Marshal(ce.Logs)
		o.Set("logs", string(logs))
	}
	return o
}

func bytesOf(v js.Value) []byte {
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// opened is what an open answers.
type opened struct {
	ID    int         `json:"id"`
	Kind  host.Kind   `json:"kind"`
	Name  string      `json:"name"`
	Tools []host.Tool `json:"tools"`
}

func (b *bridge) add(p *host.Handle) opened {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	b.handles[b.next] = p
	return opened{ID: b.next, Kind: p.Kind(), Name: p.Name(), Tools: p.Tools()}
}

func (b *bridge) handle(id int) (*host.Handle, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.handles[id]
	if !ok {
		return nil, fmt.Errorf("handle %d: %w", id, host.ErrClosed)
	}
	return p, nil
}

// openPackage(zipBytes)
func (b *bridge) openPackage(_ js.Value, args []js.Value) any {
	zip := bytesOf(args[0])
	return promise(func() (any, error) {
		p, err := b.h.OpenPackage(context.Background(), zip)
		if err != nil {
			return nil, err
		}
		return b.add(p), nil
	})
}

// openPlugin(manifestText, wasmBytes)
func (b *bridge) openPlugin(_ js.Value, args []js.Value) any {
	manifest, wasm := args[0].String(), bytesOf(args[1])
	return promise(func() (any, error) {
		p, err := b.h.OpenPlugin(context.Background(), manifest, wasm)
		if err != nil {
			return nil, err
		}
		return b.add(p), nil
	})
}

// call(id, tool, argsJSON, {fuel, timeoutMs, allowHosts, progressMs}, onProgress)
func (b *bridge) call(_ js.Value, args []js.Value) any {
	id, tool, argsJSON, o, onProgress := args[0].Int(), args[1].String(), args[2].String(), args[3], args[4]
	var opts host.CallOptions
	if v := o.Get("fuel"); v.Truthy() {
		opts.Fuel = uint64(v.Float())
	}
	if v := o.Get("timeoutMs"); v.Truthy() {
		opts.Timeout = time.Duration(v.Float() * float64(time.Millisecond))
	}
	if v := o.Get("progressMs"); v.Truthy() {
		opts.ProgressInterval = time.Duration(v.Float() * float64(time.Millisecond))
	}
	if v := o.Get("allowHosts"); v.Truthy() {
		for i := 0; i < v.Length(); i++ {
			opts.AllowHosts = append(opts.AllowHosts, v.Index(i).String())
		}
	}
	if onProgress.Type() == js.TypeFunction {
		opts.Progress = func(consumed, budget uint64) { onProgress.Invoke(float64(consumed), float64(budget)) }
	}
	return promise(func() (any, error) {
		p, err := b.handle(id)
		if err != nil {
			return nil, err
		}
		return p.Call(context.Background(), tool, json.RawMessage(argsJSON), opts)
	})
}

// close(id)
func (b *bridge) close(_ js.Value, args []js.Value) any {
	id := args[0].Int()
	return promise(func() (any, error) {
		b.mu.Lock()
		p, ok := b.handles[id]
		delete(b.handles, id)
		b.mu.Unlock()
		if !ok {
			return true, nil
		}
		return true, p.Close(context.Background())
	})
}
