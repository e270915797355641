// cfs: a wasi-libc test guest for package preview1. argv[1] picks a scenario; each step prints
// one line with the errno number (WASI numbering, which wasi-libc uses) or "ok".
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void step(const char *name, int rc) {
  if (rc < 0) {
    printf("%s: errno %d\n", name, errno);
  } else {
    printf("%s: ok\n", name);
  }
}

static int cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    printf("opendir %s: errno %d\n", dir, errno);
    return;
  }
  char *names[64];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 64) {
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp);
  printf("readdir %s:", dir);
  for (int i = 0; i < n; i++) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");
}

static int fs_scenario(void) {
  FILE *f = fopen("/rw/c.txt", "w");
  step("fopen /rw/c.txt w", f ? 0 : -1);
  if (f) {
    fputs("from C\n", f);
    step("fclose", fclose(f));
  }
  char buf[64] = {0};
  f = fopen("/rw/c.txt", "r");
  if (f) {
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    printf("read %zu bytes: %s", n, buf);
  }
  step("mkdir /rw/sub", mkdir("/rw/sub", 0755));
  step("rename", rename("/rw/c.txt", "/rw/sub/d.txt"));
  struct stat st;
  int rc = stat("/rw/sub/d.txt", &st);
  step("stat", rc);
  if (rc == 0) printf("size %lld regular %d\n", (long long)st.st_size, S_ISREG(st.st_mode));
  list("/rw/sub");
  int fd = open("/rw/sub/d.txt", O_RDWR);
  step("open O_RDWR", fd);
  step("posix_fallocate", (errno = posix_fallocate(fd, 0, 100)) ? -1 : 0);
  step("lseek", lseek(fd, 2, SEEK_SET) == 2 ? 0 : -1);
  step("write at 2", write(fd, "XY", 2) == 2 ? 0 : -1);
  step("ftruncate", ftruncate(fd, 5));
  step("fsync", fsync(fd));
  close(fd);
  f = fopen("/rw/sub/d.txt", "r");
  memset(buf, 0, sizeof buf);
  if (f) {
    fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
  }
  printf("now %s\n", buf);
  step("open /rw/../ro/ro.txt", open("/rw/../ro/ro.txt", O_RDONLY));
  step("open /ro/ro.txt", open("/ro/ro.txt", O_RDONLY));
  step("open /ro/new O_CREAT", open("/ro/new", O_CREAT | O_WRONLY, 0644));
  step("open /ro/escape", open("/ro/escape", O_RDONLY));
  step("open /nowhere/x", open("/nowhere/x", O_RDONLY));
  step("symlink escaping", symlink("../../x", "/rw/sub/bad"));
  step("unlink dir", unlink("/rw/sub"));
  step("rmdir non-empty", rmdir("/rw/sub"));
  step("unlink file", unlink("/rw/sub/d.txt"));
  step("rmdir", rmdir("/rw/sub"));
  list("/pkg");
  return 0;
}

static int echo_scenario(void) {
  char line[256];
  int n = 0;
  while (fgets(line, sizeof line, stdin)) {
    printf("line %d: %s", ++n, line);
    fflush(stdout);
  }
  printf("eof after %d lines\n", n);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: cfs scenario\n");
    return 2;
  }
  if (strcmp(argv[1], "fs") == 0) return fs_scenario();
  if (strcmp(argv[1], "echo") == 0) return echo_scenario();
  if (strcmp(argv[1], "env") == 0) {
    for (int i = 0; i < argc; i++) printf("arg %d %s\n", i, argv[i]);
    printf("HOME=%s\n", getenv("HOME") ? getenv("HOME") : "(unset)");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("realtime year>=2020 %d\n", ts.tv_sec > 1577836800);
    struct timespec sl = {0, 20 * 1000 * 1000};
    step("nanosleep", nanosleep(&sl, NULL));
    return 0;
  }
  if (strcmp(argv[1], "exit") == 0) exit(atoi(argv[2]));
  fprintf(stderr, "unknown scenario %s\n", argv[1]);
  return 2;
}
