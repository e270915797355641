// config-echo: a JavaScript (componentize-js) tool-plugin equivalent to the reference host's
// tool-fixture (zeroclaw-host.md §6), plus two opt-in extras the reference fixture does not have:
// args {"secret": NAME} read NAME through secrets.get and append "|secret=VALUE" (or
// "|secret_error=CODE"); args {"log": MESSAGE} emit one logging.log-record. Without them the output
// is byte for byte the reference fixture's.
import { get as getSecret } from "zeroclaw:plugin/secrets@0.1.0";
import { logRecord } from "zeroclaw:plugin/logging@0.1.0";

const DESCRIPTION = "Echo the caller's text after applying the plugin's typed config.";
const SCHEMA = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { text: { type: "string", description: "Text to echo." } },
  required: ["text"],
});

export const pluginInfo = {
  pluginName() { return "tool-fixture"; },
  pluginVersion() { return "0.0.0"; },
};

function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// decodeConfig is the reference's strict serde deserialisation: no unknown fields, JSON types only.
function decodeConfig(cfg) {
  const out = { label: "unset", max_len: 0, uppercase: false };
  for (const [k, v] of Object.entries(cfg)) {
    switch (k) {
      case "label":
        if (typeof v !== "string") throw `invalid __config: label must be a string`;
        out.label = v;
        break;
      case "max_len":
        if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw `invalid __config: max_len must be a non-negative integer`;
        out.max_len = v;
        break;
      case "uppercase":
        if (typeof v !== "boolean") throw `invalid __config: uppercase must be a boolean`;
        out.uppercase = v;
        break;
      default:
        throw `invalid __config: unknown field \`${k}\`, expected one of \`label\`, \`max_len\`, \`uppercase\``;
    }
  }
  return out;
}

export const tool = {
  name() { return "config-echo"; },
  description() { return DESCRIPTION; },
  parametersSchema() { return SCHEMA; },
  execute(argsJSON) {
    let args;
    try {
      args = JSON.parse(argsJSON);
    } catch (e) {
      throw `invalid args: ${e.message}`;
    }
    if (!isObject(args)) throw "invalid args: expected a JSON object";
    let text = "";
    if (args.text !== undefined) {
      if (typeof args.text !== "string") throw "invalid args: text must be a string";
      text = args.text;
    }
    let cfg = {};
    if (args.__config !== undefined) {
      if (!isObject(args.__config)) throw "invalid args: __config must be an object";
      cfg = args.__config;
    }
    const keys = Object.keys(cfg).length;
    const c = decodeConfig(cfg);
    let rendered = c.uppercase ? text.toUpperCase() : text;
    if (c.max_len > 0) rendered = Array.from(rendered).slice(0, c.max_len).join("");
    let out = `label=${c.label}|uppercase=${c.uppercase}|max_len=${c.max_len}|keys=${keys}|text=${rendered}`;
    if (typeof args.log === "string") {
      logRecord("info", {
        functionName: "execute",
        action: "invoke",
        outcome: "success",
        durationMs: 1n,
        attrs: JSON.stringify({ text_len: text.length }),
        message: args.log,
      });
    }
    if (typeof args.secret === "string") {
      try {
        out += `|secret=${getSecret(args.secret)}`;
      } catch (e) {
        out += `|secret_error=${e && e.payload !== undefined ? e.payload : e}`;
      }
    }
    return { success: true, output: out, error: undefined };
  },
};
