// Helper of .ci/difftest-http. GUEST is fetch-tool (fetch-tool.wasm, componentize-js) or
// goclient (goclient.wasm, Go). Three modes, each printing one normalized line per case
// ("NAME<TAB>RESULT") so that kobako and node can be compared with diff:
//   node difftest.mjs node GUEST TOOL.js BASE_URL     runs every case through jco transpile's module
//   node difftest.mjs kobako GUEST BASE_URL < LINES   normalizes "NAME<TAB>WAVE" lines kobako printed
//   node difftest.mjs cases GUEST BASE_URL            prints "NAME<TAB>ARGS_JSON" for the kobako side
// A result keeps what both hosts must agree on (success, status, chosen response headers, the
// body or its length and hash, the redirects followed), not what legitimately differs (dates,
// error texts, the framing headers of HTTP/1.1, which node speaks, and HTTP/2, which kobako does).
//
// Only cases where node's preview2-shim (0.26) behaves as a policy-free host does are compared;
// the egress policy's refusals have no node counterpart (they are go test cases). Left out,
// because the shim differs:
//   - request trailers: its outgoing-body.finish throws internal-error ("trailers unsupported")
//     whenever trailers are given;
//   - response trailers: its incoming-body.finish always answers an empty trailers field list,
//     whatever the server sent, so no trailers are compared (goclient's "trailers" is dropped);
//   - repeated response fields: it hands the guest node's res.headers, in which a field sent
//     twice is one entry with the values joined by ", " (set-cookie aside); the guest sees
//     kobako's two entries, so headers are compared by name with their values joined the same
//     way (RFC 9110 5.3: the same meaning), not entry by entry;
//   - timeouts (request-options): in the shim's source the first-byte and between-bytes
//     timeouts only set node socket timeouts once the response has begun, with nothing ending
//     the request when they fire, and the connect timeout is the socket's idle timeout until the
//     response, so kobako's connection-read-timeout cases have no node counterpart;
//   - methods outside the policy's list and URLs the policy refuses.
const shown = ["x-seen", "x-echo", "x-reply", "location", "content-type"];

const guests = {
  "fetch-tool": {
    cases: (base) => [
      ["get", { url: `${base}/hello?x=1` }],
      ["delete", { url: `${base}/hello`, method: "DELETE" }],
      ["post", { url: `${base}/echo`, method: "POST", body: "abc", headers: { "content-type": "text/plain" } }],
      ["put-streamed", { url: `${base}/echo`, method: "PUT", body: "0123456789", repeat: 100 }],
      ["download", { url: `${base}/big?n=200000`, digest: "length" }],
      ["redirect-followed", { url: `${base}/redirect?to=/hello`, follow: 2 }],
      ["redirect-returned", { url: `${base}/redirect?to=/hello` }],
      ["not-found", { url: `${base}/status?c=404` }],
      ["request-header", { url: `${base}/hello`, headers: { "x-test": "abc" } }],
      ["fields", { url: `${base}/fields?q=1`, method: "POST", body: "abc", headers: { "x-test": "t1" } }],
    ],
    // output: {status, headers: {name: value}, url, hops, body | length}
    normalize(o) {
      const parts = [`status=${o.status}`, `hops=${o.hops}`];
      for (const h of shown) if (o.headers[h] !== undefined) parts.push(`${h}=${JSON.stringify(o.headers[h])}`);
      if (o.length !== undefined) parts.push(`length=${o.length}`);
      if (o.body !== undefined) parts.push(`body=${JSON.stringify(o.body)}`);
      return parts;
    },
  },
  goclient: {
    cases: (base) => [
      ["get", { url: `${base}/hello?x=1` }],
      ["delete", { url: `${base}/echo`, method: "DELETE" }],
      ["post", { url: `${base}/echo`, method: "POST", body: "abc", headers: [["content-type", "text/plain"]] }],
      // 10 kB written 100 bytes at a time as check-write allows: the host streams it.
      ["put-streamed", { url: `${base}/echo`, method: "PUT", body: "0123456789", repeat: 1000, chunk: 100 }],
      ["download", { url: `${base}/big?n=200000`, digest: true }],
      ["redirect-followed", { url: `${base}/redirect?to=/hello`, follow: 2 }],
      ["redirect-returned", { url: `${base}/redirect?to=/hello` }],
      // a 302 after POST is followed with a GET without a body.
      ["redirect-post", { url: `${base}/redirect?to=/echo`, method: "POST", body: "abc", follow: 2 }],
      ["not-found", { url: `${base}/status?c=404` }],
      ["request-header", { url: `${base}/hello`, headers: [["x-test", "abc"]] }],
      ["fields", { url: `${base}/fields?q=1`, method: "POST", body: "abc",
        headers: [["x-test", "t1"], ["x-multi", "a"], ["x-multi", "b"]] }],
      ["path-override", { url: `${base}/ignored`, path: "/hello?via=path" }],
    ],
    // output: {status, headers: [[name, value]], trailers, body, length, fnv1a, hops, url}
    normalize(o, base) {
      const parts = [`status=${o.status}`, `hops=${o.hops}`, `url=${o.url.replace(base, "BASE")}`];
      for (const h of shown) {
        const vs = o.headers.filter(([k]) => k === h).map(([, v]) => v);
        if (vs.length) parts.push(`${h}=${JSON.stringify(vs.join(", "))}`);
      }
      parts.push(`length=${o.length}`, `fnv1a=${o.fnv1a}`, `body=${JSON.stringify(o.body)}`);
      return parts;
    },
  },
};

function normalize(guest, base, r) {
  if (!r.success) return `failure${guest === "goclient" ? ` ${r.error}` : ""}`;
  return guests[guest].normalize(JSON.parse(r.output), base).join(" ");
}

// unwave reads the string field `name` of a WAVE record.
function unwave(line, name) {
  const m = line.match(new RegExp(`${name}: "((?:[^"\\\\]|\\\\.)*)"`));
  if (!m) return undefined;
  return m[1].replace(/\\(u\{([0-9a-fA-F]+)\}|.)/g, (_, c, hex) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : { n: "\n", t: "\t", r: "\r" }[c] ?? c);
}

const [mode, guest, ...rest] = process.argv.slice(2);
if (!guests[guest]) throw new Error(`unknown guest ${JSON.stringify(guest)}`);
if (mode === "cases") {
  for (const [name, args] of guests[guest].cases(rest[0])) console.log(`${name}\t${JSON.stringify(args)}`);
} else if (mode === "node") {
  const { tool } = await import(rest[0]);
  const base = rest[1];
  for (const [name, args] of guests[guest].cases(base)) {
    let line;
    try {
      line = normalize(guest, base, await tool.execute(JSON.stringify(args)));
    } catch (e) {
      line = "trap";
    }
    console.log(`${name}\t${line}`);
  }
} else if (mode === "kobako") {
  const base = rest[0];
  const input = (await new Promise((res) => {
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => res(s));
  })).split("\n").filter(Boolean);
  for (const l of input) {
    const [name, wave] = l.split("\t");
    if (!wave.startsWith("ok(")) {
      console.log(`${name}\t${wave}`);
      continue;
    }
    const r = { success: /success: true/.test(wave), output: unwave(wave, "output"), error: unwave(wave, "error") };
    console.log(`${name}\t${normalize(guest, base, r)}`);
  }
} else {
  throw new Error(`unknown mode ${JSON.stringify(mode)}`);
}
