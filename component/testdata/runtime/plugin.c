// Freestanding C (no libc, no WASI) implementation of world test:plugin/tool-plugin (wit/plugin.wit),
// the canonical ABI by hand; from shared/toolchain/c/plugin.c. ../build.sh builds plugin.wasm from it.
typedef unsigned int u32;
typedef unsigned char u8;

extern u8 __heap_base;
static u32 heap_top;

static u32 bump(u32 size, u32 align) {
    if (!heap_top) heap_top = (u32)&__heap_base;
    heap_top = (heap_top + align - 1) & ~(align - 1);
    u32 p = heap_top;
    heap_top += size;
    u32 need = (heap_top + 65535) >> 16;
    u32 have = __builtin_wasm_memory_size(0);
    if (need > have && __builtin_wasm_memory_grow(0, need - have) == (u32)-1) __builtin_trap();
    return p;
}

__attribute__((export_name("cabi_realloc")))
void *cabi_realloc(void *old, u32 old_size, u32 align, u32 new_size) {
    u8 *p = (u8 *)bump(new_size, align);
    for (u32 i = 0; i < old_size && i < new_size; i++) p[i] = ((u8 *)old)[i];
    return p;
}

static u32 ret_area[3];

__attribute__((export_name("test:plugin/tool#name")))
u32 *name(void) {
    static const char n[] = "c-plugin";
    ret_area[0] = (u32)n;
    ret_area[1] = sizeof n - 1;
    return ret_area;
}

// result<string,string>: discriminant byte at +0, (ptr,len) at +4.
__attribute__((export_name("test:plugin/tool#execute")))
u32 *execute(u8 *args, u32 len) {
    u8 *out = (u8 *)bump(len, 1);
    int fail = len >= 4 && args[0] == 'f' && args[1] == 'a' && args[2] == 'i' && args[3] == 'l';
    for (u32 i = 0; i < len; i++) {
        u8 c = args[i];
        out[i] = (!fail && c >= 'a' && c <= 'z') ? c - 32 : c;
    }
    ret_area[0] = fail ? 1 : 0;
    ret_area[1] = (u32)out;
    ret_area[2] = len;
    return ret_area;
}

// Reset the bump heap after each call (post-return).
__attribute__((export_name("cabi_post_test:plugin/tool#execute")))
void post_execute(u32 *ret) { heap_top = 0; }
