// A WASI command in C (wasi-libc), turned into a component with the preview1 command adapter: the
// shape of every component built from a preview1 module, with the adapter's core modules, the
// shim and fixup modules that break its import cycle, and the WASI 0.2 interfaces it imports.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    char line[256];
    if (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        printf("hello, %s\n", line);
    }
    const char *home = getenv("HOME");
    fprintf(stderr, "argc=%d home=%s time=%ld\n", argc, home ? home : "(unset)", (long)time(NULL));
    FILE *f = fopen("greeting.txt", "r");
    if (f) {
        fclose(f);
    }
    return 0;
}
