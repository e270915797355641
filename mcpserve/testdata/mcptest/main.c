// mcptest is the ABI 1 package of kobako mcp's tests and of the MCP conformance suite's tool
// scenarios: a stateless MCP server (revision 2026-07-28) on stdio, in C against wasi-libc so that
// the module stays small. Rebuild with build.sh.
//
// Tools for kobako's own tests: echo (its arguments back, as text and structuredContent), fail (an
// isError result), crash (traps), spin (loops until stopped), picture (writes a PNG to the volume
// and links it). Tools the conformance suite calls by name: test_simple_text, test_image_content,
// test_audio_content, test_embedded_resource, test_multiple_content_types, test_error_handling,
// test_tool_with_progress and json_schema_2020_12_tool.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LINE (1 << 20)

static char line[MAX_LINE + 2];

// A 1x1 PNG and a WAV file of 8 silent 8-bit samples, in base64.
static const char *png_b64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
static const char *wav_b64 = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
static const unsigned char png_bytes[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50,
    0x0f, 0x00, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

// span is a slice of the line: a JSON value as written.
typedef struct {
	const char *p;
	size_t n;
} span;

static const char *skip_ws(const char *s) {
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
	return s;
}

// skip_value returns the end of the JSON value at s, or NULL if it is malformed.
static const char *skip_value(const char *s) {
	s = skip_ws(s);
	if (*s == '"') {
		for (s++; *s && *s != '"'; s++)
			if (*s == '\\' && s[1]) s++;
		return *s == '"' ? s + 1 : NULL;
	}
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';
		s = skip_ws(s + 1);
		if (*s == close) return s + 1;
		for (;;) {
			if (close == '}') {
				s = skip_value(s);
				if (!s) return NULL;
				s = skip_ws(s);
				if (*s != ':') return NULL;
				s++;
			}
			s = skip_value(s);
			if (!s) return NULL;
			s = skip_ws(s);
			if (*s == ',') {
				s = skip_ws(s + 1);
				continue;
			}
			return *s == close ? s + 1 : NULL;
		}
	}
	if (!*s) return NULL;
	while (*s && !strchr(",}] \t\r\n", *s)) s++;
	return s;
}

// member finds key among the members of the object obj; n is 0 when it is absent.
static span member(span obj, const char *key) {
	span none = {0, 0};
	if (!obj.p || *obj.p != '{') return none;
	const char *s = skip_ws(obj.p + 1), *end = obj.p + obj.n;
	size_t kl = strlen(key);
	while (s < end && *s == '"') {
		const char *k = s + 1, *ke = skip_value(s);
		if (!ke) return none;
		s = skip_ws(ke);
		if (*s != ':') return none;
		const char *v = skip_ws(s + 1), *ve = skip_value(v);
		if (!ve) return none;
		if ((size_t)(ke - 1 - k) == kl && memcmp(k, key, kl) == 0) return (span){v, (size_t)(ve - v)};
		s = skip_ws(ve);
		if (*s == ',') s = skip_ws(s + 1);
	}
	return none;
}

static int is(span v, const char *quoted) { return v.n == strlen(quoted) && memcmp(v.p, quoted, v.n) == 0; }

static void put(span v) { fwrite(v.p, 1, v.n, stdout); }

// put_string writes v (any JSON value) as a JSON string.
static void put_string(span v) {
	putchar('"');
	for (size_t i = 0; i < v.n; i++) {
		unsigned char c = (unsigned char)v.p[i];
		if (c == '"' || c == '\\') printf("\\%c", c);
		else if (c < 0x20) printf("\\u%04x", c);
		else putchar(c);
	}
	putchar('"');
}

static void begin(span id) {
	fputs("{\"jsonrpc\":\"2.0\",\"id\":", stdout);
	put(id);
	fputs(",\"result\":{\"resultType\":\"complete\",", stdout);
}

static void end(void) {
	fputs("}}\n", stdout);
	fflush(stdout);
}

static const char *tools_json =
    "\"tools\":["
    "{\"name\":\"echo\",\"description\":\"Returns its arguments as text and as structured content.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"fail\",\"description\":\"Always fails, for the model to read.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"crash\",\"description\":\"Traps.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"spin\",\"description\":\"Loops until it is stopped.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_tool_with_progress\",\"description\":\"Computes for two seconds, reporting progress when asked.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"picture\",\"description\":\"Writes a PNG to the volume and links it.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_simple_text\",\"description\":\"Returns simple text.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_image_content\",\"description\":\"Returns an image.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_audio_content\",\"description\":\"Returns audio.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_embedded_resource\",\"description\":\"Returns an embedded resource.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_multiple_content_types\",\"description\":\"Returns text, an image and a resource.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"test_error_handling\",\"description\":\"Always returns an error.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"json_schema_2020_12_tool\",\"description\":\"Tool with JSON Schema 2020-12 features\",\"inputSchema\":{"
    "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\",\"$defs\":{\"address\":{\"type\":\"object\","
    "\"properties\":{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"address\":{\"$ref\":\"#/$defs/address\"}},\"additionalProperties\":false}}"
    "]";

static volatile int sink;

static void call(span id, span params) {
	span name = member(params, "name"), args = member(params, "arguments");
	if (!args.n) args = (span){"{}", 2};
	begin(id);
	if (is(name, "\"echo\"")) {
		fputs("\"content\":[{\"type\":\"text\",\"text\":", stdout);
		put_string(args);
		fputs("}],\"structuredContent\":", stdout);
		put(args);
	} else if (is(name, "\"fail\"")) {
		fputs("\"content\":[{\"type\":\"text\",\"text\":\"the tool failed on purpose\"}],\"isError\":true", stdout);
	} else if (is(name, "\"crash\"")) {
		fputs("oops", stderr);
		fflush(stderr);
		__builtin_trap();
	} else if (is(name, "\"spin\"")) {
		for (;;) sink++;
	} else if (is(name, "\"test_tool_with_progress\"")) {
		// Computes for two seconds: the host reports its fuel as progress while it runs.
		struct timespec start, now;
		clock_gettime(CLOCK_MONOTONIC, &start);
		do {
			for (int i = 0; i < 1000000; i++) sink++;
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while ((now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec) < 2000000000LL);
		fputs("\"content\":[{\"type\":\"text\",\"text\":\"Progress test completed.\"}]", stdout);
	} else if (is(name, "\"picture\"")) {
		FILE *f = fopen("/volume/tmp/picture.png", "wb");
		if (!f || fwrite(png_bytes, 1, sizeof png_bytes, f) != sizeof png_bytes || fclose(f) != 0) {
			fputs("\"content\":[{\"type\":\"text\",\"text\":\"cannot write the picture\"}],\"isError\":true", stdout);
		} else {
			fputs("\"content\":[{\"type\":\"text\",\"text\":\"a picture\"},{\"type\":\"resource_link\",\"uri\":\"volume:///tmp/picture.png\",\"name\":\"picture.png\"}]", stdout);
		}
	} else if (is(name, "\"test_simple_text\"")) {
		fputs("\"content\":[{\"type\":\"text\",\"text\":\"This is a simple text response for testing.\"}]", stdout);
	} else if (is(name, "\"test_image_content\"")) {
		printf("\"content\":[{\"type\":\"image\",\"data\":\"%s\",\"mimeType\":\"image/png\"}]", png_b64);
	} else if (is(name, "\"test_audio_content\"")) {
		printf("\"content\":[{\"type\":\"audio\",\"data\":\"%s\",\"mimeType\":\"audio/wav\"}]", wav_b64);
	} else if (is(name, "\"test_embedded_resource\"")) {
		fputs("\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"test://embedded-resource\",\"mimeType\":\"text/plain\","
		      "\"text\":\"This is an embedded resource content.\"}}]", stdout);
	} else if (is(name, "\"test_multiple_content_types\"")) {
		printf("\"content\":[{\"type\":\"text\",\"text\":\"Multiple content types test:\"},{\"type\":\"image\",\"data\":\"%s\",\"mimeType\":\"image/png\"},"
		       "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://mixed-content-resource\",\"mimeType\":\"application/json\","
		       "\"text\":\"{\\\"test\\\":\\\"data\\\",\\\"value\\\":123}\"}}]", png_b64);
	} else if (is(name, "\"test_error_handling\"")) {
		fputs("\"content\":[{\"type\":\"text\",\"text\":\"This tool intentionally returns an error for testing\"}],\"isError\":true", stdout);
	} else if (is(name, "\"json_schema_2020_12_tool\"")) {
		fputs("\"content\":[{\"type\":\"text\",\"text\":", stdout);
		put_string(args);
		fputs("}]", stdout);
	} else {
		fputs("\"content\":[{\"type\":\"text\",\"text\":\"unknown tool\"}],\"isError\":true", stdout);
	}
	end();
}

int main(void) {
	while (fgets(line, sizeof line, stdin)) {
		span msg = {line, strlen(line)};
		while (msg.n && (msg.p[msg.n - 1] == '\n' || msg.p[msg.n - 1] == '\r')) msg.n--;
		span id = member(msg, "id"), method = member(msg, "method");
		if (!id.n) continue; // a notification
		if (is(method, "\"server/discover\"")) {
			begin(id);
			fputs("\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
			      "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcptest\",\"version\":\"1.0.0\"}}",
			      stdout);
			end();
		} else if (is(method, "\"tools/list\"")) {
			begin(id);
			fputs(tools_json, stdout);
			end();
		} else if (is(method, "\"tools/call\"")) {
			call(id, member(msg, "params"));
		} else {
			fputs("{\"jsonrpc\":\"2.0\",\"id\":", stdout);
			put(id);
			fputs(",\"error\":{\"code\":-32601,\"message\":\"method not found\"}}\n", stdout);
			fflush(stdout);
		}
	}
	return 0;
}
