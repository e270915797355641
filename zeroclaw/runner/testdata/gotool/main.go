// Command gotool is a Go (GOOS=wasip1, c-shared) tool-plugin for world zeroclaw:plugin/tool-plugin
// with the canonical ABI written by hand (wit-bindgen-go's output needs TinyGo). ../build.sh makes
// it a component with the patch and adapter of component/testdata/real.
//
// Exports: plugin-info (plugin-name "go-tool", plugin-version "0.1.0"); tool name "go-echo";
// description, which reads secrets.get("api_token") during metadata and reports the error code it
// got (a conforming host answers "unavailable" outside execute); parameters-schema; and execute,
// which takes a JSON object:
//
//	{"text": S}            output "go-echo:S|config=<__config as received, or {}>"
//	{"secret": NAME}       appends "|secret=VALUE" or "|secret_error=CODE" (secrets.get)
//	{"log": MESSAGE}       emits one logging.log-record at level info
//	{"fail": MESSAGE}      returns err(MESSAGE)
//	{"tool_error": M}      returns ok({success: false, output: "", error: some(M)})
//
// Garbage collection runs only inside export bodies: the canonical ABI forbids imports while the
// host runs cabi_realloc or post-return, and a collection reads the clock through WASI.
package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"unsafe"
)

func main() {}

func init() { debug.SetGCPercent(-1) }

var garbage uint64

func collect() {
	if garbage > 8<<20 {
		runtime.GC()
		garbage = 0
	}
}

// live keeps buffers whose addresses the host holds reachable until post-return.
var live = map[uint32][]uint64{}

func alloc(size uint32) uint32 {
	if size == 0 {
		return 8
	}
	garbage += uint64(size)
	buf := make([]uint64, (size+7)/8)
	p := uint32(uintptr(unsafe.Pointer(&buf[0])))
	live[p] = buf
	return p
}

func mem(p, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(uintptr(p))), n)
}

//go:wasmexport cabi_realloc
func cabiRealloc(oldPtr, oldSize, align, newSize uint32) uint32 {
	p := alloc(newSize)
	if oldPtr != 0 && oldSize != 0 {
		copy(mem(p, newSize), mem(oldPtr, min(oldSize, newSize)))
		delete(live, oldPtr)
	}
	return p
}

func lower(s string) (uint32, uint32) {
	p := alloc(uint32(len(s)))
	copy(mem(p, uint32(len(s))), s)
	return p, uint32(len(s))
}

func release() { clear(live) }

// ret is the return area: big enough for result<tool-result, string> (28 bytes).
var ret [8]uint32

func retPtr() uint32 { return uint32(uintptr(unsafe.Pointer(&ret))) }

func returnString(s string) uint32 {
	collect()
	ret[0], ret[1] = lower(s)
	return retPtr()
}

//go:wasmimport zeroclaw:plugin/secrets@0.1.0 get
func secretsGet(ptr, n, retp uint32)

//go:wasmimport zeroclaw:plugin/logging@0.1.0 log-record
func logRecord(level, fnPtr, fnLen, action, outcomeSet, outcome, durationSet uint32, duration uint64,
	attrsSet, attrsPtr, attrsLen, msgPtr, msgLen uint32)

// secretErrors are the cases of enum secret-error, in WIT order.
var secretErrors = []string{"access-denied", "not-found", "unavailable"}

// getSecret calls secrets.get; the host lowers the ok string through cabi_realloc.
func getSecret(name string) (string, string) {
	var area [3]uint32
	np, nl := lower(name)
	secretsGet(np, nl, uint32(uintptr(unsafe.Pointer(&area))))
	if area[0]&0xff == 0 {
		return string(mem(area[1], area[2])), ""
	}
	code := area[1] & 0xff
	if int(code) < len(secretErrors) {
		return "", secretErrors[code]
	}
	return "", "bad-discriminant"
}

func emitLog(message string) {
	fp, fl := lower("execute")
	ap, al := lower(`{"source":"go"}`)
	mp, ml := lower(message)
	const levelInfo, actionInvoke, outcomeSuccess = 2, 27, 0
	logRecord(levelInfo, fp, fl, actionInvoke, 1, outcomeSuccess, 1, 7, 1, ap, al, mp, ml)
}

//go:wasmexport zeroclaw:plugin/plugin-info@0.1.0#plugin-name
func pluginName() uint32 { return returnString("go-tool") }

//go:wasmexport cabi_post_zeroclaw:plugin/plugin-info@0.1.0#plugin-name
func postPluginName(uint32) { release() }

//go:wasmexport zeroclaw:plugin/plugin-info@0.1.0#plugin-version
func pluginVersion() uint32 { return returnString("0.1.0") }

//go:wasmexport cabi_post_zeroclaw:plugin/plugin-info@0.1.0#plugin-version
func postPluginVersion(uint32) { release() }

//go:wasmexport zeroclaw:plugin/tool@0.1.0#name
func name() uint32 { return returnString("go-echo") }

//go:wasmexport cabi_post_zeroclaw:plugin/tool@0.1.0#name
func postName(uint32) { release() }

//go:wasmexport zeroclaw:plugin/tool@0.1.0#description
func description() uint32 {
	_, code := getSecret("api_token")
	if code == "" {
		code = "none"
	}
	return returnString("Echo the caller's text from Go (secrets during metadata: " + code + ").")
}

//go:wasmexport cabi_post_zeroclaw:plugin/tool@0.1.0#description
func postDescription(uint32) { release() }

//go:wasmexport zeroclaw:plugin/tool@0.1.0#parameters-schema
func parametersSchema() uint32 {
	return returnString(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"text":{"type":"string"}}}`)
}

//go:wasmexport cabi_post_zeroclaw:plugin/tool@0.1.0#parameters-schema
func postParametersSchema(uint32) { release() }

type args struct {
	Text      string          `json:"text"`
	Secret    *string         `json:"secret"`
	Log       *string         `json:"log"`
	Fail      *string         `json:"fail"`
	ToolError *string         `json:"tool_error"`
	Config    json.RawMessage `json:"__config"`
}

//go:wasmexport zeroclaw:plugin/tool@0.1.0#execute
func execute(p, n uint32) uint32 {
	raw := string(mem(p, n))
	delete(live, p)
	garbage += 4 * uint64(n)
	collect()
	clear(ret[:])
	var a args
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		ret[0] = 1
		ret[1], ret[2] = lower("invalid args: " + err.Error())
		return retPtr()
	}
	if a.Fail != nil {
		ret[0] = 1
		ret[1], ret[2] = lower(*a.Fail)
		return retPtr()
	}
	if a.Log != nil {
		emitLog(*a.Log)
	}
	ret[0] = 0
	if a.ToolError != nil {
		ret[1] = 0 // success false
		ret[2], ret[3] = lower("")
		ret[4] = 1
		ret[5], ret[6] = lower(*a.ToolError)
		return retPtr()
	}
	cfg := "{}"
	if len(a.Config) > 0 {
		cfg = string(a.Config)
	}
	out := "go-echo:" + a.Text + "|config=" + cfg
	if a.Secret != nil {
		if v, code := getSecret(*a.Secret); code == "" {
			out += "|secret=" + v
		} else {
			out += "|secret_error=" + code
		}
	}
	ret[1] = 1 // success true
	ret[2], ret[3] = lower(out)
	ret[4] = 0 // error: none
	return retPtr()
}

//go:wasmexport cabi_post_zeroclaw:plugin/tool@0.1.0#execute
func postExecute(uint32) { release() }
