// kobako.js: the JavaScript API of kobako's browser build. Import it as a module; it sets
// window.kobako (globalThis.kobako) and exports the same object. README.md documents the API.
//
// Every opened package or plugin gets its own Web Worker (worker.js) running kobako.wasm, so a
// long call never freezes the page and stopping one call (which terminates its worker) touches no
// other handle. The wasm module is compiled once and shared by the workers. A handle keeps the
// bytes it was opened from, so that after a stop it opens them again in a fresh worker.

const base = new URL(".", import.meta.url);

class CallError extends Error {
	constructor(e) {
		super(e.message);
		this.name = "KobakoError";
		this.kind = e.kind; // fuel, deadline, canceled, guest, trap, crash, usage, open, closed, error
		if ("fuelConsumed" in e) {
			this.fuelConsumed = e.fuelConsumed;
			this.ms = e.ms;
			this.logs = e.logs;
		}
	}
}

let module; // the compiled kobako.wasm

// A Worker running kobako.wasm, answering requests by sequence number.
class GoWorker {
	constructor() {
		this.w = new Worker(new URL("worker.js", base));
		this.seq = 0;
		this.waiting = new Map(); // seq -> {resolve, reject, onProgress}
		this.dead = null;
		this.booted = new Promise((resolve, reject) => {
			this.w.onmessage = (ev) => {
				const m = ev.data;
				if ("booted" in m) {
					m.booted ? resolve() : reject(new Error(`kobako did not start: ${m.error}`));
					return;
				}
				const req = this.waiting.get(m.seq);
				if (!req) return;
				if (m.progress) {
					req.onProgress && req.onProgress(m.progress);
					return;
				}
				this.waiting.delete(m.seq);
				m.ok ? req.resolve(m.value) : req.reject(new CallError(m.error));
			};
			this.w.onerror = (ev) => {
				const err = new Error(`kobako's worker failed: ${ev.message || "error"}`);
				reject(err);
				this.kill(err);
			};
		});
		this.w.postMessage({ op: "boot", module });
	}

	async request(msg, transfer = [], onProgress = null) {
		await this.booted;
		if (this.dead) throw this.dead;
		const seq = ++this.seq;
		return new Promise((resolve, reject) => {
			this.waiting.set(seq, { resolve, reject, onProgress });
			this.w.postMessage({ ...msg, seq }, transfer);
		});
	}

	// kill terminates the worker: every request still waiting fails with err.
	kill(err) {
		if (this.dead) return;
		this.dead = err;
		this.w.terminate();
		for (const req of this.waiting.values()) req.reject(err);
		this.waiting.clear();
	}
}

let spare = null; // a booted worker not yet given to a handle
const takeWorker = () => {
	const w = spare || new GoWorker();
	spare = null;
	return w;
};

// bytes fetches a URL (a string or URL) or copies bytes (Uint8Array, ArrayBuffer, Blob).
async function bytes(src, what) {
	if (src instanceof Uint8Array) return new Uint8Array(src);
	if (src instanceof ArrayBuffer) return new Uint8Array(src.slice(0));
	if (typeof Blob !== "undefined" && src instanceof Blob) return new Uint8Array(await src.arrayBuffer());
	if (typeof src === "string" || src instanceof URL) {
		const r = await fetch(new URL(src, document.baseURI));
		if (!r.ok) throw new CallError({ message: `${what}: GET ${src}: ${r.status} ${r.statusText}`, kind: "open" });
		return new Uint8Array(await r.arrayBuffer());
	}
	throw new CallError({ message: `${what}: want bytes (Uint8Array, ArrayBuffer, Blob) or a URL`, kind: "usage" });
}

const abortError = (reason) =>
	new CallError({ message: `call stopped${reason ? ": " + reason : ""}`, kind: "canceled" });

// Handle is an opened package or plugin.
class Handle {
	constructor(open) {
		this._open = open; // (worker) => Promise<info>: opens the same bytes again
		this._queue = Promise.resolve(); // calls run one at a time
		this._running = null; // the running call's {stop}
		this._closed = false;
	}

	async _start(worker) {
		this._worker = worker;
		this._ready = this._open(worker).then((info) => {
			this.id = info.id;
			this.kind = info.kind; // "package" or "plugin"
			this.name = info.name;
			this._tools = info.tools;
		});
		return this._ready;
	}

	// tools answers the tools: [{name, description, inputSchema}].
	async tools() {
		await this._ready;
		return this._tools.map((t) => ({ ...t }));
	}

	// call runs one tool call in a fresh instance. opts: fuel, timeoutMs, onProgress({consumed,
	// budget, fraction}), allowHosts (subako_http's or wasi:http's allowlist), signal (an AbortSignal
	// that stops the call). It answers {result, fuelConsumed, ms, logs} or rejects with an Error
	// whose kind says why (README.md).
	call(name, args = {}, opts = {}) {
		const run = async () => {
			if (this._closed) throw new CallError({ message: "handle is closed", kind: "closed" });
			if (opts.signal && opts.signal.aborted) throw abortError(opts.signal.reason);
			await this._ready;
			const msg = {
				op: "call", id: this.id, tool: String(name), args: JSON.stringify(args ?? {}),
				opts: { fuel: opts.fuel || 0, timeoutMs: opts.timeoutMs || 0, allowHosts: opts.allowHosts || null, progressMs: opts.progressMs || 0 },
			};
			const onProgress = opts.onProgress
				? (p) => opts.onProgress({ ...p, fraction: p.budget ? Math.min(1, p.consumed / p.budget) : 0 })
				: null;
			const worker = this._worker;
			let stopped = null;
			const stop = (err) => {
				if (stopped) return;
				stopped = err;
				this._replaceWorker(worker, err);
			};
			this._running = { stop };
			const onAbort = () => stop(abortError(opts.signal.reason));
			opts.signal && opts.signal.addEventListener("abort", onAbort);
			// The deadline is enforced inside the worker; this watchdog only replaces a worker
			// that has not answered well after it (a host that hung).
			const timeoutMs = opts.timeoutMs || 0;
			const watchdog = timeoutMs > 0 ? setTimeout(() => stop(new CallError({
				message: `no answer ${timeoutMs + WATCHDOG_GRACE_MS} ms after a ${timeoutMs} ms deadline; the worker was replaced`, kind: "deadline",
			})), timeoutMs + WATCHDOG_GRACE_MS) : null;
			try {
				const v = await worker.request(msg, [], onProgress);
				return v;
			} catch (e) {
				throw stopped || e;
			} finally {
				clearTimeout(watchdog);
				opts.signal && opts.signal.removeEventListener("abort", onAbort);
				this._running = null;
			}
		};
		const p = this._queue.then(run, run);
		this._queue = p.catch(() => {});
		return p;
	}

	// cancel stops the running call, if any: its worker is terminated and replaced (the handle
	// opens its bytes again there). The call rejects with kind "canceled".
	cancel(reason) {
		if (this._running) this._running.stop(abortError(reason));
	}

	_replaceWorker(old, err) {
		old.kill(err);
		if (this._worker === old && !this._closed) this._start(new GoWorker());
	}

	// memory answers the worker's wasm memory size in bytes (it only grows: a high-water mark).
	async memory() {
		await this._ready;
		return this._worker.request({ op: "memory" });
	}

	// close releases the handle and its worker.
	async close() {
		if (this._closed) return;
		this._closed = true;
		this.cancel("closed");
		this._worker.kill(new CallError({ message: "handle is closed", kind: "closed" }));
	}
}

const WATCHDOG_GRACE_MS = 5000;

async function openWith(open) {
	await kobako.ready;
	const h = new Handle(open);
	await h._start(takeWorker());
	return h;
}

const kobako = {
	// ready resolves once kobako.wasm is compiled and a worker has started it.
	ready: (async () => {
		module = await WebAssembly.compileStreaming(fetch(new URL("kobako.wasm", base)));
		spare = new GoWorker();
		await spare.booted;
	})(),

	// openPackage opens an ABI 1 package zip: bytes (Uint8Array, ArrayBuffer, Blob) or a URL.
	async openPackage(bytesOrURL) {
		const zip = await bytes(bytesOrURL, "package");
		return openWith((w) => w.request({ op: "openPackage", bytes: zip }));
	},

	// openPlugin opens a ZeroClaw tool plugin: manifest is the manifest.toml text, wasm the
	// component (bytes, a Blob or a URL).
	async openPlugin({ manifest, wasm }) {
		if (typeof manifest !== "string") throw new CallError({ message: "openPlugin: manifest must be the manifest.toml text", kind: "usage" });
		const component = await bytes(wasm, "plugin component");
		return openWith((w) => w.request({ op: "openPlugin", manifest, wasm: component }));
	},

	CallError,
};

globalThis.kobako = kobako;
export default kobako;
