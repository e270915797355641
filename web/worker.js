// worker.js: the Web Worker kobako runs in (a classic worker, started by kobako.js). It loads the
// in-memory file system and Go's wasm_exec.js, instantiates the compiled kobako.wasm it is sent,
// and relays requests from the page to globalThis.kobakoGo, which main_js.go installs:
//
//   page -> worker  {op: "boot", module}                     (a compiled WebAssembly.Module)
//                   {op, seq, ...}                           op: openPackage, openPlugin, call, close
//   worker -> page  {booted: true} | {booted: false, error}
//                   {seq, ok: true, value} | {seq, ok: false, error: {message, kind, ...}}
//                   {seq, progress: {consumed, budget}}      while a call runs
//
// A call runs Go synchronously on this worker's thread until the guest waits on the network or
// returns, so the page stays responsive; a running call is stopped by terminating the worker.
"use strict";

importScripts("memfs.js", "wasm_exec.js");

let goReady;
const booted = new Promise((resolve, reject) => {
	goReady = (err) => (err ? reject(new Error(err)) : resolve());
});
globalThis.kobakoGoReady = goReady;

async function boot(module) {
	const go = new Go();
	go.env = { TMPDIR: "/tmp", HOME: "/" };
	go.exit = (code) => {
		if (code !== 0) goReady(`kobako exited with status ${code}`);
	};
	const instance = await WebAssembly.instantiate(module, go.importObject);
	globalThis.kobakoMemory = instance.exports.mem;
	go.run(instance); // resolves only when Go exits, which kobako does not
	await booted;
}

const plainError = (e) => {
	if (e && typeof e === "object" && "kind" in e) {
		const out = { message: String(e.message), kind: String(e.kind) };
		if ("fuelConsumed" in e) {
			out.fuelConsumed = e.fuelConsumed;
			out.ms = e.ms;
			out.logs = JSON.parse(e.logs);
		}
		return out;
	}
	return { message: String(e && e.message ? e.message : e), kind: "error" };
};

self.onmessage = async (ev) => {
	const m = ev.data;
	if (m.op === "boot") {
		try {
			await boot(m.module);
			self.postMessage({ booted: true });
		} catch (e) {
			self.postMessage({ booted: false, error: String(e && e.message ? e.message : e) });
		}
		return;
	}
	if (m.op === "memory") {
		// The Go instance's linear memory: its size is the worker's wasm heap, never shrinking.
		self.postMessage({ seq: m.seq, ok: true, value: { wasmMemoryBytes: globalThis.kobakoMemory.buffer.byteLength } });
		return;
	}
	const k = globalThis.kobakoGo;
	let p;
	switch (m.op) {
		case "openPackage":
			p = k.openPackage(m.bytes);
			break;
		case "openPlugin":
			p = k.openPlugin(m.manifest, m.wasm);
			break;
		case "call":
			p = k.call(m.id, m.tool, m.args, m.opts, (consumed, budget) =>
				self.postMessage({ seq: m.seq, progress: { consumed, budget } }));
			break;
		case "close":
			p = k.close(m.id);
			break;
		default:
			self.postMessage({ seq: m.seq, ok: false, error: { message: `unknown op ${m.op}`, kind: "usage" } });
			return;
	}
	try {
		self.postMessage({ seq: m.seq, ok: true, value: JSON.parse(await p) });
	} catch (e) {
		self.postMessage({ seq: m.seq, ok: false, error: plainError(e) });
	}
};
