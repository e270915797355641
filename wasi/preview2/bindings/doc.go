// Package bindings holds the Go host bindings of the WASI 0.2 interfaces package preview2
// serves, generated from ../wit by cmd/kobako-bindgen: one Go interface per WIT interface of
// wasi:cli's imports world and of wasi:http's client side, with its Define function, and a Go
// type for every WIT type they name. Where two interfaces name a type alike, the one met later
// is qualified by its interface or package (TypesErrorCode is wasi:filesystem's error-code,
// NetworkErrorCode wasi:sockets'; wasi:io/error's interface is IoError, its resource Error).
//
// Package preview2 serves wasi:sockets through these interfaces. The Define functions name the
// interfaces at 0.2.12; the linker matches a component's import of any 0.2.x version to them,
// preferring a definition of the exact version it imports.
package bindings

//go:generate go run ../../../cmd/kobako-bindgen -wit ../wit -world host=wasi -o wasi.go
