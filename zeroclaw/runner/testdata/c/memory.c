// Freestanding C memory-plugin (world wit/v0 memory-plugin) with the canonical ABI written by
// hand: an in-memory map of up to 64 entries in static arrays (keys ≤ 128 bytes, content ≤ 1 KiB,
// other strings ≤ 64 bytes; longer values are refused with an error).
//
// Capabilities: purge-namespace and reindex (reindex answers 42, not the host default 0). Every
// other flag is unset and its stub answers something other than the WIT default ("WRONG", 99…), so
// a host that enters the guest for an unset flag is caught. recall matches entries whose content
// contains the query (all entries for an empty query), in insertion order.
#include "abi.h"

#define N 64
#define SMALL 64
typedef struct { u32 len; u8 b[SMALL]; } small;
typedef struct { u8 some; small s; } osmall;
typedef struct {
    int used;
    u32 seq;
    u32 key_len, content_len;
    u8 key[128];
    u8 content[1024];
    u8 cat;         // memory-category case
    small custom;   // its payload for custom
    osmall session, agent;
    small ns;
    u8 has_importance;
    double importance;
} entry;
static entry db[N];
static u32 seq;

// ---- canonical ABI layouts ----
typedef struct { u8 tag; u8 _p[3]; str s; } category;   // variant memory-category, 12 bytes
typedef struct { u8 some; u8 _p[7]; double v; } optf64; // option<f64>, 16 bytes
typedef struct {
    str id, key, content;
    category cat;
    str timestamp;
    optstr session;
    optf64 score;
    str ns;
    optf64 importance;
    optstr superseded, alias, agent;
} memory_entry;
_Static_assert(sizeof(memory_entry) == 136, "memory-entry layout");

static int put_small(small *d, const u8 *p, u32 n) {
    if (n > SMALL) return 0;
    mcopy(d->b, p, n);
    d->len = n;
    return 1;
}

static str num(u32 n) {
    char b[12];
    u32 k = 0, d = 1;
    while (d * 10 <= n) d *= 10;
    for (; d > 0; d /= 10) b[k++] = '0' + (n / d) % 10;
    return dup((u8 *)b, k);
}

static void lower_entry(memory_entry *m, entry *e) {
    *m = (memory_entry){0};
    str n = num(e->seq);
    m->id = cat("id-", (u8 *)n.ptr, n.len);
    m->key = dup(e->key, e->key_len);
    m->content = dup(e->content, e->content_len);
    m->cat.tag = e->cat;
    if (e->cat == 3) m->cat.s = dup(e->custom.b, e->custom.len);
    m->timestamp = cat("t", (u8 *)n.ptr, n.len);
    if (e->session.some) m->session = (optstr){1, {0}, dup(e->session.s.b, e->session.s.len)};
    m->ns = dup(e->ns.b, e->ns.len);
    if (e->has_importance) m->importance = (optf64){1, {0}, e->importance};
    if (e->agent.some) m->agent = (optstr){1, {0}, dup(e->agent.s.b, e->agent.s.len)};
}

static entry *find(const u8 *k, u32 n) {
    for (u32 i = 0; i < N; i++)
        if (db[i].used && db[i].key_len == n) {
            u32 j = 0;
            while (j < n && db[i].key[j] == k[j]) j++;
            if (j == n) return &db[i];
        }
    return 0;
}

static int contains(const u8 *h, u32 hn, const u8 *q, u32 qn) {
    if (qn == 0) return 1;
    for (u32 i = 0; i + qn <= hn; i++) {
        u32 j = 0;
        while (j < qn && h[i + j] == q[j]) j++;
        if (j == qn) return 1;
    }
    return 0;
}

static int small_eq(const small *s, const u8 *p, u32 n) {
    if (s->len != n) return 0;
    for (u32 i = 0; i < n; i++) if (s->b[i] != p[i]) return 0;
    return 1;
}

// store: the shared body of store-entry and store-with-agent.
static result4 *store(u8 *k, u32 kn, u8 *c, u32 cn, u32 cat_tag, u8 *cp, u32 cpn,
                      u32 s_some, u8 *sp, u32 sn, u32 ns_some, u8 *nsp, u32 nsn,
                      u32 imp_some, double imp, u32 a_some, u8 *ap, u32 an) {
    if (kn > 128 || cn > 1024) return err_str(cstr("key or content too long"));
    if (cat_tag > 3) __builtin_trap();
    entry *e = find(k, kn);
    if (!e)
        for (u32 i = 0; i < N && !e; i++) if (!db[i].used) e = &db[i];
    if (!e) return err_str(cstr("memory full"));
    entry t = {0};
    t.used = 1;
    t.seq = ++seq;
    mcopy(t.key, k, kn);
    t.key_len = kn;
    mcopy(t.content, c, cn);
    t.content_len = cn;
    t.cat = (u8)cat_tag;
    int ok = 1;
    if (cat_tag == 3) ok &= put_small(&t.custom, cp, cpn);
    if (s_some) { t.session.some = 1; ok &= put_small(&t.session.s, sp, sn); }
    if (ns_some) ok &= put_small(&t.ns, nsp, nsn);
    else ok &= put_small(&t.ns, (const u8 *)"default", 7);
    if (a_some) { t.agent.some = 1; ok &= put_small(&t.agent.s, ap, an); }
    t.has_importance = imp_some != 0;
    t.importance = imp;
    if (!ok) return err_str(cstr("a field is too long"));
    *e = t;
    return ok_unit();
}

// ---- plugin-info ----
static str sret;
__attribute__((export_name("zeroclaw:plugin/plugin-info@0.1.0#plugin-name")))
str *plugin_name(void) { sret = cstr("map-memory"); done(); return &sret; }
__attribute__((export_name("zeroclaw:plugin/plugin-info@0.1.0#plugin-version")))
str *plugin_version(void) { sret = cstr("0.1.0"); done(); return &sret; }

// ---- required ----
#define EXPORT(n) __attribute__((export_name("zeroclaw:plugin/memory@0.1.0#" n)))

EXPORT("name") str *name(void) { sret = cstr("map-memory"); done(); return &sret; }

EXPORT("get-memory-capabilities") u32 get_memory_capabilities(void) { done(); return 1u << 1 | 1u << 5; }

EXPORT("store-entry")
result4 *store_entry(u8 *k, u32 kn, u8 *c, u32 cn, u32 cat_tag, u8 *cp, u32 cpn, u32 s_some, u8 *sp, u32 sn) {
    return store(k, kn, c, cn, cat_tag, cp, cpn, s_some, sp, sn, 0, 0, 0, 0, 0, 0, 0, 0);
}

// result<list<memory-entry>, string>
static result4 *entries(u32 limit, int (*keep)(entry *, void *), void *arg) {
    u32 n = 0;
    for (u32 i = 0; i < N; i++) if (db[i].used && keep(&db[i], arg)) n++;
    if (limit && n > limit) n = limit;
    memory_entry *out = (memory_entry *)bump(n * sizeof(memory_entry) + 8, 8);
    u32 k = 0;
    for (u32 i = 0; i < N && k < n; i++) if (db[i].used && keep(&db[i], arg)) lower_entry(&out[k++], &db[i]);
    ret4.tag = 0;
    ret4.a = (u32)out;
    ret4.b = n;
    done();
    return &ret4;
}

typedef struct { u8 *q; u32 qn; u32 s_some; u8 *sp; u32 sn; const u8 *agents; u32 agents_n; } recall_arg;

static int keep_recall(entry *e, void *p) {
    recall_arg *a = p;
    if (!contains(e->content, e->content_len, a->q, a->qn)) return 0;
    if (a->s_some && !(e->session.some && small_eq(&e->session.s, a->sp, a->sn))) return 0;
    if (a->agents) {
        if (!e->agent.some) return 0;
        const str *list = (const str *)a->agents;
        for (u32 i = 0; i < a->agents_n; i++)
            if (small_eq(&e->agent.s, (u8 *)list[i].ptr, list[i].len)) return 1;
        return 0;
    }
    return 1;
}

EXPORT("recall")
result4 *recall(u8 *q, u32 qn, u64 limit, u32 s_some, u8 *sp, u32 sn, u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) {
    recall_arg arg = {q, qn, s_some, sp, sn, 0, 0};
    return entries((u32)(limit > 1000 ? 1000 : limit), keep_recall, &arg);
}

// result<option<memory-entry>, string>: tag at 0, option tag at 8, entry at 16.
static struct { u8 tag; u8 _p[7]; u8 some; u8 _q[7]; memory_entry e; } get_ret;

EXPORT("get") void *get(u8 *k, u32 kn) {
    get_ret.tag = 0;
    get_ret.some = 0;
    entry *e = find(k, kn);
    if (e) { get_ret.some = 1; lower_entry(&get_ret.e, e); }
    done();
    return &get_ret;
}

typedef struct { u32 c_some, c_tag; u8 *cp; u32 cpn; u32 s_some; u8 *sp; u32 sn; } list_arg;

static int keep_list(entry *e, void *p) {
    list_arg *a = p;
    if (a->c_some) {
        if (e->cat != a->c_tag) return 0;
        if (a->c_tag == 3 && !small_eq(&e->custom, a->cp, a->cpn)) return 0;
    }
    if (a->s_some && !(e->session.some && small_eq(&e->session.s, a->sp, a->sn))) return 0;
    return 1;
}

EXPORT("list-entries")
result4 *list_entries(u32 c_some, u32 c_tag, u8 *cp, u32 cpn, u32 s_some, u8 *sp, u32 sn) {
    list_arg arg = {c_some, c_tag, cp, cpn, s_some, sp, sn};
    return entries(0, keep_list, &arg);
}

static result4 *ok_bool(int b) { ret4.tag = 0; ret4.a = b ? 1 : 0; done(); return &ret4; }

EXPORT("forget") result4 *forget(u8 *k, u32 kn) {
    entry *e = find(k, kn);
    if (e) e->used = 0;
    return ok_bool(e != 0);
}

EXPORT("forget-for-agent") result4 *forget_for_agent(u8 *k, u32 kn, u8 *ag, u32 an) {
    entry *e = find(k, kn);
    if (!e || !e->agent.some || !small_eq(&e->agent.s, ag, an)) return ok_bool(0);
    e->used = 0;
    return ok_bool(1);
}

// result<u64, string>: tag at 0, payload at 8.
static struct { u8 tag; u8 _p[7]; u64 v; } u64_ret;
static void *ok_u64(u64 v) { u64_ret.tag = 0; u64_ret.v = v; done(); return &u64_ret; }
static void *err_u64(const char *s) {
    str m = cstr(s);
    u64_ret.tag = 1;
    ((u32 *)&u64_ret)[1] = m.ptr;
    ((u32 *)&u64_ret)[2] = m.len;
    done();
    return &u64_ret;
}

EXPORT("count") void *count(void) {
    u64 n = 0;
    for (u32 i = 0; i < N; i++) n += db[i].used;
    return ok_u64(n);
}

EXPORT("health-check") u32 health_check(void) { done(); return 1; }

// store-with-agent has 18 flat parameters, more than 16: they arrive as one record in memory.
typedef struct {
    str key, content;
    category cat;
    optstr session, ns;
    optf64 importance;
    optstr agent;
} swa_params;
_Static_assert(sizeof(swa_params) == 88, "store-with-agent parameter layout");

EXPORT("store-with-agent") result4 *store_with_agent(swa_params *p) {
    return store((u8 *)p->key.ptr, p->key.len, (u8 *)p->content.ptr, p->content.len, p->cat.tag,
                 (u8 *)p->cat.s.ptr, p->cat.s.len, p->session.some, (u8 *)p->session.s.ptr, p->session.s.len,
                 p->ns.some, (u8 *)p->ns.s.ptr, p->ns.s.len, p->importance.some, p->importance.v,
                 p->agent.some, (u8 *)p->agent.s.ptr, p->agent.s.len);
}

EXPORT("recall-for-agents")
result4 *recall_for_agents(u32 f_tag, u32 lp, u32 ln, u8 *q, u32 qn, u64 limit, u32 s_some, u8 *sp, u32 sn,
                           u32 a, u32 b, u32 c, u32 d, u32 e, u32 f) {
    recall_arg arg = {q, qn, s_some, sp, sn, f_tag == 1 ? (const u8 *)lp : 0, ln};
    static const u8 none[1];
    if (f_tag == 1 && lp == 0) arg.agents = none;
    return entries((u32)(limit > 1000 ? 1000 : limit), keep_recall, &arg);
}

// ---- capability-gated: set ----

EXPORT("purge-namespace") void *purge_namespace(u8 *ns, u32 nn) {
    u64 n = 0;
    for (u32 i = 0; i < N; i++)
        if (db[i].used && small_eq(&db[i].ns, ns, nn)) { db[i].used = 0; n++; }
    return ok_u64(n);
}

EXPORT("reindex") void *reindex(void) { return ok_u64(42); }

// ---- capability-gated: unset; each stub is wrong on purpose ----

static const char WRONG[] = "WRONG: the host called a stub whose flag is unset";

EXPORT("get-for-agent") void *get_for_agent(u32 a, u32 b, u32 c, u32 d) {
    get_ret.tag = 1;
    str m = cstr(WRONG);
    ((u32 *)&get_ret)[1] = m.ptr;
    ((u32 *)&get_ret)[2] = m.len;
    done();
    return &get_ret;
}
EXPORT("purge-session") void *purge_session(u32 a, u32 b) { return ok_u64(99); }
EXPORT("purge-session-for-agent") void *purge_session_for_agent(u32 a, u32 b, u32 c, u32 d) { return ok_u64(99); }
EXPORT("purge-agent") void *purge_agent(u32 a, u32 b) { return ok_u64(99); }
EXPORT("store-procedural") result4 *store_procedural(u32 a, u32 b, u32 c, u32 d, u32 e) { return err_str(cstr(WRONG)); }
EXPORT("ensure-agent-uuid") result4 *ensure_agent_uuid(u32 a, u32 b) {
    str m = cstr("WRONG");
    ret4.tag = 0; ret4.a = m.ptr; ret4.b = m.len; done(); return &ret4;
}
EXPORT("recall-namespaced")
result4 *recall_namespaced(u32 a, u32 b, u32 c, u32 d, u64 e, u32 f, u32 g, u32 h, u32 i, u32 j, u32 k, u32 l, u32 m, u32 n) {
    return err_str(cstr(WRONG));
}
EXPORT("export-entries")
result4 *export_entries(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f, u32 g, u32 h, u32 i, u32 j, u32 k, u32 l, u32 m, u32 n, u32 o, u32 p) {
    return err_str(cstr(WRONG));
}
EXPORT("store-with-metadata")
result4 *store_with_metadata(u32 a, u32 b, u32 c, u32 d, u32 e, u32 f, u32 g, u32 h, u32 i, u32 j, u32 k, u32 l, u32 m, u32 n, double o) {
    return err_str(cstr(WRONG));
}
