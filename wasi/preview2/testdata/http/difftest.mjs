// Helper of .ci/difftest-http. Two modes, each printing one normalized line per case
// ("NAME<TAB>RESULT") so that kobako and node can be compared with diff:
//   node difftest.mjs node TOOL.js BASE_URL     runs every case through jco transpile's module
//   node difftest.mjs kobako < LINES            normalizes "NAME<TAB>WAVE" lines kobako printed
//   node difftest.mjs cases BASE_URL            prints "NAME<TAB>ARGS_JSON" for the kobako side
// A result keeps what both hosts must agree on (success, status, the x-seen header, the body
// or its length, the redirects followed), not what legitimately differs (dates, error texts).
const cases = (base) => [
  ["get", { url: `${base}/hello?x=1` }],
  ["delete", { url: `${base}/hello`, method: "DELETE" }],
  ["post", { url: `${base}/echo`, method: "POST", body: "abc", headers: { "content-type": "text/plain" } }],
  ["put-streamed", { url: `${base}/echo`, method: "PUT", body: "0123456789", repeat: 100 }],
  ["download", { url: `${base}/big?n=200000`, digest: "length" }],
  ["redirect-followed", { url: `${base}/redirect?to=/hello`, follow: 2 }],
  ["redirect-returned", { url: `${base}/redirect?to=/hello` }],
  ["not-found", { url: `${base}/status?c=404` }],
];

function normalize(r) {
  if (!r.success) return "failure";
  const o = JSON.parse(r.output);
  const parts = [`status=${o.status}`, `hops=${o.hops}`, `x-seen=${o.headers["x-seen"] ?? ""}`];
  if (o.length !== undefined) parts.push(`length=${o.length}`);
  if (o.body !== undefined) parts.push(`body=${JSON.stringify(o.body)}`);
  return parts.join(" ");
}

// unwave reads the string field `name` of a WAVE record.
function unwave(line, name) {
  const m = line.match(new RegExp(`${name}: "((?:[^"\\\\]|\\\\.)*)"`));
  if (!m) return undefined;
  return m[1].replace(/\\(u\{([0-9a-fA-F]+)\}|.)/g, (_, c, hex) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : { n: "\n", t: "\t", r: "\r" }[c] ?? c);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "cases") {
  for (const [name, args] of cases(rest[0])) console.log(`${name}\t${JSON.stringify(args)}`);
} else if (mode === "node") {
  const { tool } = await import(rest[0]);
  for (const [name, args] of cases(rest[1])) {
    let line;
    try {
      line = normalize(await tool.execute(JSON.stringify(args)));
    } catch (e) {
      line = "trap";
    }
    console.log(`${name}\t${line}`);
  }
} else if (mode === "kobako") {
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
    console.log(`${name}\t${normalize({ success: /success: true/.test(wave), output: unwave(wave, "output") })}`);
  }
}
