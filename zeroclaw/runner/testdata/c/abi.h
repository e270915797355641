// Freestanding helpers for the hand-written canonical ABI of the C fixtures (no libc, no WASI).
//
// Heap: a bump allocator over the memory after __heap_base, reset lazily. Every export marks the
// heap for reset just before it returns (done()); the first allocation of the next call, whether
// the host lowering that call's arguments through cabi_realloc or the body itself, starts over.
// The host has lifted the previous results by then, so nothing live is overwritten. Persistent
// state lives in static arrays, never on this heap.
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned char u8;

extern u8 __heap_base;
static u32 heap_top;
static int reset_pending = 1;

static u32 bump(u32 size, u32 align) {
    if (reset_pending || !heap_top) {
        heap_top = (u32)&__heap_base;
        reset_pending = 0;
    }
    heap_top = (heap_top + align - 1) & ~(align - 1);
    u32 p = heap_top;
    heap_top += size;
    u32 need = (heap_top + 65535) >> 16;
    u32 have = __builtin_wasm_memory_size(0);
    if (need > have && __builtin_wasm_memory_grow(0, need - have) == (u32)-1) __builtin_trap();
    return p;
}

static void done(void) { reset_pending = 1; }

__attribute__((export_name("cabi_realloc")))
void *cabi_realloc(void *old, u32 old_size, u32 align, u32 new_size) {
    u8 *p = (u8 *)bump(new_size, align);
    for (u32 i = 0; i < old_size && i < new_size; i++) p[i] = ((u8 *)old)[i];
    return p;
}

// clang lowers struct copies and zeroing to these.
void *memset(void *d, int c, unsigned long n) {
    for (unsigned long i = 0; i < n; i++) ((u8 *)d)[i] = (u8)c;
    return d;
}
void *memcpy(void *d, const void *s, unsigned long n) {
    for (unsigned long i = 0; i < n; i++) ((u8 *)d)[i] = ((const u8 *)s)[i];
    return d;
}

static u32 slen(const char *s) { u32 n = 0; while (s[n]) n++; return n; }

static void mcopy(void *dst, const void *src, u32 n) {
    for (u32 i = 0; i < n; i++) ((u8 *)dst)[i] = ((const u8 *)src)[i];
}

static int meq(const u8 *a, u32 an, const char *b) {
    u32 bn = slen(b);
    if (an != bn) return 0;
    for (u32 i = 0; i < an; i++) if (a[i] != (u8)b[i]) return 0;
    return 1;
}

static int has_prefix(const u8 *a, u32 an, const char *b) {
    u32 bn = slen(b);
    if (an < bn) return 0;
    for (u32 i = 0; i < bn; i++) if (a[i] != (u8)b[i]) return 0;
    return 1;
}

// A string in canonical ABI form: pointer and length in linear memory.
typedef struct { u32 ptr, len; } str;
// option<string>: discriminant byte, then the string at offset 4.
typedef struct { u8 some; u8 _pad[3]; str s; } optstr;

static str dup(const u8 *p, u32 n) {
    u8 *q = (u8 *)bump(n, 1);
    mcopy(q, p, n);
    return (str){(u32)q, n};
}

static str cstr(const char *s) { return dup((const u8 *)s, slen(s)); }

// cat joins two byte strings on the heap.
static str cat(const char *a, const u8 *b, u32 bn) {
    u32 an = slen(a);
    u8 *q = (u8 *)bump(an + bn, 1);
    mcopy(q, a, an);
    mcopy(q + an, b, bn);
    return (str){(u32)q, an + bn};
}

// result<_, string> and friends: discriminant byte, payload at offset 4.
typedef struct { u8 tag; u8 _pad[3]; u32 a, b, c; } result4;
static result4 ret4;

static result4 *ok_unit(void) { ret4.tag = 0; done(); return &ret4; }
static result4 *err_str(str s) { ret4.tag = 1; ret4.a = s.ptr; ret4.b = s.len; done(); return &ret4; }
