// Command web is kobako's browser build: compiled with GOOS=js GOARCH=wasm it runs in a Web
// Worker of the page in this directory (index.html, kobako.js, worker.js, memfs.js) and serves
// the JavaScript API that README.md documents, window.kobako, over package web/host. Serve it
// from a checkout with
//
//	go run ./web/serve --addr 127.0.0.1:8080
//
// which builds it and serves the page. Built for any other platform it only says so.
package main
