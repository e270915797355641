// A ZeroClaw tool (world zeroclaw:plugin/tool-plugin@0.1.0) whose execute does one fetch()
// described by its JSON arguments and reports what came back. See README.md for the arguments.
export const pluginInfo = {
  pluginName() {
    return "http-fetch";
  },
  pluginVersion() {
    return "0.1.0";
  },
};

function fnv1a(bytes, h) {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

function repeatedBody(text, times) {
  const chunk = new TextEncoder().encode(text);
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i++ < times) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

export const tool = {
  name() {
    return "http_fetch";
  },
  description() {
    return "Fetches a URL and returns the status, headers and body.";
  },
  parametersSchema() {
    return JSON.stringify({
      type: "object",
      properties: {
        url: { type: "string" },
        method: { type: "string" },
        headers: { type: "object", additionalProperties: { type: "string" } },
        body: { type: "string" },
        repeat: { type: "integer" },
        digest: { type: ["boolean", "string"] },
        follow: { type: "integer" },
      },
      required: ["url"],
    });
  },
  async execute(argsJSON) {
    let args;
    try {
      args = JSON.parse(argsJSON);
    } catch (e) {
      throw "arguments are not JSON: " + e;
    }
    const init = { method: args.method || "GET", headers: args.headers || {} };
    if (args.body !== undefined) {
      init.body = args.repeat ? repeatedBody(args.body, args.repeat) : args.body;
    }
    try {
      // StarlingMonkey's fetch hands redirects back unfollowed; with "follow" the tool follows
      // up to that many itself, each hop a new request the host checks again.
      let url = args.url;
      let resp = await fetch(url, init);
      let hops = 0;
      while (args.follow && hops < args.follow && resp.status >= 301 && resp.status <= 308 && resp.headers.get("location")) {
        url = new URL(resp.headers.get("location"), url).href;
        hops++;
        const again = { method: "GET", headers: init.headers };
        if (resp.status === 307 || resp.status === 308) {
          again.method = init.method;
          if (typeof init.body === "string") again.body = init.body;
        }
        resp = await fetch(url, again);
      }
      const headers = {};
      for (const [k, v] of resp.headers) headers[k] = v;
      const out = { status: resp.status, headers, url, hops };
      if (args.digest) {
        const reader = resp.body.getReader();
        let length = 0;
        let hash = 2166136261;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          length += value.length;
          if (args.digest !== "length") hash = fnv1a(value, hash);
        }
        out.length = length;
        out.fnv1a = hash;
      } else {
        out.body = await resp.text();
      }
      return { success: true, output: JSON.stringify(out), error: undefined };
    } catch (e) {
      return { success: false, output: "", error: String(e) };
    }
  },
};
