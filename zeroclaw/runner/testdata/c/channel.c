// Freestanding C channel-plugin with the canonical ABI written by hand. One source, two shapes:
//   default  : the published v0 world (wit/v0): configure(config: string), imports logging, inbound
//   -DSEED   : the seed's world (wit/seed): configure() reading config.get; imports config, secrets
//
// Behaviour (the runtime tests rely on it):
//   send(m)       content "fail" -> err("send failed"); otherwise queues an echo for poll-message,
//                 sent "to" the recipient: "config" -> "config:<public JSON>" (v0: the string given
//                 to configure; seed: config.get now, or "config-error:<code>"), "secret:NAME" ->
//                 "secret:<value>" / "secret-error:<code>" (seed: secrets.get; v0 has no secrets),
//                 anything else -> "echo:<content>". The outbox holds 8 messages.
//   poll-message  the outbox first, else inbound.inbound-poll mapped field by field; a host
//                 message whose content is "trap" traps after it was dequeued, "spin" loops
//                 forever. The guest's channel/channel-alias are "guest-channel"/"guest-alias":
//                 the host must replace them with its own routing identity.
//   capabilities  health-check, self-handle ("@echo-bot"), start-typing, multi-message-delay-ms
//                 (250), add-reaction. Every unset flag's stub answers something other than the
//                 WIT default ("WRONG", true for false…), so a host that enters the guest for an
//                 unset flag is caught.
#include "abi.h"

#ifdef SEED
#define NAME "seed-channel"
#else
#define NAME "echo-channel"
#endif

// ---- imports ----

__attribute__((import_module("zeroclaw:plugin/inbound@0.1.0"), import_name("inbound-poll")))
extern void inbound_poll(u32 retptr);

#ifdef SEED
__attribute__((import_module("zeroclaw:plugin/config@0.1.0"), import_name("get")))
extern void config_get(u32 retptr);
__attribute__((import_module("zeroclaw:plugin/secrets@0.1.0"), import_name("get")))
extern void secrets_get(u32 ptr, u32 len, u32 retptr);

static const char *config_errors[] = {"access-denied", "unavailable"};
static const char *secret_errors[] = {"access-denied", "not-found", "unavailable"};
#endif

// ---- state ----

#define OUTBOX 8
#define MAXTEXT 2048
static struct { u32 to_len, text_len; u8 to[256]; u8 text[MAXTEXT]; } outbox[OUTBOX];
static u32 out_head, out_count, out_seq;

#ifndef SEED
static u8 cfg[4096];
static u32 cfg_len;
#endif

// ---- plugin-info ----

static str sret;

__attribute__((export_name("zeroclaw:plugin/plugin-info@0.1.0#plugin-name")))
str *plugin_name(void) { sret = cstr(NAME); done(); return &sret; }

__attribute__((export_name("zeroclaw:plugin/plugin-info@0.1.0#plugin-version")))
str *plugin_version(void) { sret = cstr("0.1.0"); done(); return &sret; }

// ---- required ----

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#name")))
str *name(void) { sret = cstr(NAME); done(); return &sret; }

#ifdef SEED
__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#configure")))
result4 *configure(void) {
    u32 area[3];
    config_get((u32)area);
    if ((area[0] & 0xff) == 1 && (area[1] & 0xff) == 1) return err_str(cstr("config unavailable"));
    return ok_unit();
}
#else
__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#configure")))
result4 *configure(u8 *p, u32 n) {
    if (n == 0 || p[0] != '{') return err_str(cstr("config is not a JSON object"));
    if (n > sizeof cfg) return err_str(cstr("config too large"));
    mcopy(cfg, p, n);
    cfg_len = n;
    return ok_unit();
}
#endif

static void enqueue(str to, str text) {
    u32 i = (out_head + out_count) % OUTBOX;
    u32 tl = to.len < 256 ? to.len : 256, xl = text.len < MAXTEXT ? text.len : MAXTEXT;
    mcopy(outbox[i].to, (u8 *)to.ptr, tl);
    mcopy(outbox[i].text, (u8 *)text.ptr, xl);
    outbox[i].to_len = tl;
    outbox[i].text_len = xl;
    out_count++;
}

// send(message: send-message): 15 flat parameters.
__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#send")))
result4 *send(u8 *content, u32 content_len, u8 *recipient, u32 recipient_len,
              u32 subj_some, u32 subj_p, u32 subj_n, u32 th_some, u32 th_p, u32 th_n,
              u32 att_p, u32 att_n, u32 irt_some, u32 irt_p, u32 irt_n) {
    if (meq(content, content_len, "fail")) return err_str(cstr("send failed"));
    if (out_count == OUTBOX) return err_str(cstr("outbox full"));
    str to = {(u32)recipient, recipient_len}, text;
    if (meq(content, content_len, "config")) {
#ifdef SEED
        u32 area[3];
        config_get((u32)area);
        if ((area[0] & 0xff) == 0) text = cat("config:", (u8 *)area[1], area[2]);
        else {
            const char *code = config_errors[(area[1] & 0xff) & 1];
            text = cat("config-error:", (const u8 *)code, slen(code));
        }
#else
        text = cat("config:", cfg, cfg_len);
#endif
    } else if (has_prefix(content, content_len, "secret:")) {
#ifdef SEED
        u32 area[3];
        secrets_get((u32)(content + 7), content_len - 7, (u32)area);
        if ((area[0] & 0xff) == 0) text = cat("secret:", (u8 *)area[1], area[2]);
        else {
            u32 c = area[1] & 0xff;
            const char *code = c < 3 ? secret_errors[c] : "bad-discriminant";
            text = cat("secret-error:", (const u8 *)code, slen(code));
        }
#else
        text = cstr("secret-error:no-import");
#endif
    } else {
        text = cat("echo:", content, content_len);
    }
    enqueue(to, text);
    return ok_unit();
}

// option<inbound-message>: discriminant at 0, the record at 8 (align 8, 112 bytes).
typedef struct {
    str id, sender, reply_target, content, channel;
    optstr alias;
    u32 _pad;
    u64 timestamp;
    optstr thread_ts, scope;
    str attachments;
    optstr subject;
    u32 _pad2;
} inbound_message;
typedef struct { u8 some; u8 _p[7]; inbound_message m; } opt_inbound;
// option<host-inbound-message>: the same without attachments.
typedef struct {
    str id, sender, reply_target, content, channel;
    optstr alias;
    u32 _pad;
    u64 timestamp;
    optstr thread_ts, scope, subject;
    u32 _pad2;
} host_message;
typedef struct { u8 some; u8 _p[7]; host_message m; } opt_host;

_Static_assert(sizeof(inbound_message) == 112, "inbound-message layout");
_Static_assert(sizeof(host_message) == 104, "host-inbound-message layout");

static opt_inbound poll_ret;
static opt_host host_area;
static u64 empty_list[1];

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#poll-message")))
opt_inbound *poll_message(void) {
    poll_ret = (opt_inbound){0};
    inbound_message *m = &poll_ret.m;
    m->attachments = (str){(u32)empty_list, 0};
    m->channel = cstr("guest-channel");
    m->alias = (optstr){1, {0}, cstr("guest-alias")};
    if (out_count > 0) {
        u32 i = out_head;
        out_head = (out_head + 1) % OUTBOX;
        out_count--;
        out_seq++;
        char id[16] = "out-";
        u32 k = 4, n = out_seq, d = 1;
        while (d * 10 <= n) d *= 10;
        for (; d > 0; d /= 10) id[k++] = '0' + (n / d) % 10;
        m->id = dup((u8 *)id, k);
        m->sender = dup(outbox[i].to, outbox[i].to_len);
        m->reply_target = dup(outbox[i].to, outbox[i].to_len);
        m->content = dup(outbox[i].text, outbox[i].text_len);
        poll_ret.some = 1;
        done();
        return &poll_ret;
    }
    inbound_poll((u32)&host_area);
    if (!host_area.some) { done(); return &poll_ret; }
    host_message *h = &host_area.m;
    if (meq((u8 *)h->content.ptr, h->content.len, "trap")) __builtin_trap();
    if (meq((u8 *)h->content.ptr, h->content.len, "spin")) { for (volatile int x = 0;; x++) {} }
    m->id = h->id;
    m->sender = h->sender;
    m->reply_target = h->reply_target;
    m->content = h->content;
    m->timestamp = h->timestamp;
    m->thread_ts = h->thread_ts;
    m->scope = h->scope;
    m->subject = h->subject;
    poll_ret.some = 1;
    done();
    return &poll_ret;
}

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#get-channel-capabilities")))
u32 get_channel_capabilities(void) {
    done();
    return 1u << 0 | 1u << 1 | 1u << 4 | 1u << 8 | 1u << 14;
}

// ---- capability-gated: set ----

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#health-check")))
u32 health_check(void) { done(); return 1; }

static optstr oret;

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#self-handle")))
optstr *self_handle(void) { oret = (optstr){1, {0}, cstr("@echo-bot")}; done(); return &oret; }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#start-typing")))
result4 *start_typing(u32 p, u32 n) { return ok_unit(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#multi-message-delay-ms")))
u64 multi_message_delay_ms(void) { done(); return 250; }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#add-reaction")))
result4 *add_reaction(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) { return ok_unit(); }

// ---- capability-gated: unset; each stub is wrong on purpose ----

static result4 *wrong(void) { return err_str(cstr("WRONG: the host called a stub whose flag is unset")); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#self-addressed-mention")))
optstr *self_addressed_mention(void) { oret = (optstr){1, {0}, cstr("WRONG")}; done(); return &oret; }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#drop-self-message")))
u32 drop_self_message(u32 msg) { done(); return 1; }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#stop-typing")))
result4 *stop_typing(u32 p, u32 n) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#supports-draft-updates")))
u32 supports_draft_updates(void) { done(); return 1; }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#send-draft")))
result4 *send_draft(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f, u32 g, u32 h, u32 i, u32 j,
                    u32 k, u32 l, u32 m, u32 n, u32 o) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#update-draft")))
result4 *update_draft(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#update-draft-progress")))
result4 *update_draft_progress(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#finalize-draft")))
result4 *finalize_draft(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#cancel-draft")))
result4 *cancel_draft(u32 a, u32 b, u32 c, u32 d) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#supports-multi-message-streaming")))
u32 supports_multi_message_streaming(void) { done(); return 1; }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#remove-reaction")))
result4 *remove_reaction(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#pin-message")))
result4 *pin_message(u32 a, u32 b, u32 c, u32 d) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#unpin-message")))
result4 *unpin_message(u32 a, u32 b, u32 c, u32 d) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#redact-message")))
result4 *redact_message(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f, u32 g) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#request-approval")))
result4 *request_approval(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f, u32 g, u32 h, u32 i) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#request-choice")))
result4 *request_choice(u32 a, u32 b, u32 c, u32 d, u64 timeout) { return wrong(); }

__attribute__((export_name("zeroclaw:plugin/channel@0.1.0#supports-free-form-ask")))
u32 supports_free_form_ask(void) { done(); return 0; }
