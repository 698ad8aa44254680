/* The floor of interval counting: what `pmu-raw --per-box -x, -I MS` would cost if it were a
 * hand-written loop and nothing else. It maps the pages of the counters it is given, writes each
 * counter's control (so that the simulator counts and the counts have as many digits as pmu-raw's;
 * restored at the end), and every
 * interval sleeps to an absolute deadline, reads the clock, loads each counter once (a 64-bit
 * load, as pmu-raw's flat sample does for an Intel MMIO counter), takes its delta modulo 2^width,
 * formats every line of pmu-raw's per-box CSV by hand (time, box, count, unit, event, run time,
 * percentage) into one buffer and writes it with one write(2). No discovery, no programming, no
 * restore: interval_cpu.py subtracts a one-interval run's CPU from each side alike.
 *
 * Usage: interval_floor MEMFILE PLAN INTERVAL_MS COUNT OUT
 *   MEMFILE  the file the counters' physical addresses are offsets in (a pmu-sim snapshot's dev/mem)
 *   PLAN     a line per output line, in output order: "PHYS WIDTH BOX EVENT CTL VALUE": the
 *            counter's address and width in bits, the line's names, and its 32-bit control's
 *            address and the value that selects the event (addresses and value in hex)
 *   OUT      where the CSV goes (created or truncated)
 * C, no dependencies beyond libc; built by bench/CMakeLists.txt as bench/interval_floor. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct counter {
  const volatile uint64_t* at;
  volatile uint32_t* ctl;
  uint64_t ctl_phys;
  uint32_t value, saved;
  uint64_t mask, last;
  const char* pre;  /* ",BOX," */
  const char* post; /* ",,EVENT," */
  size_t pre_n, post_n;
};

struct page {
  uint64_t phys;
  char* map;
};

static void die(const char* what) {
  fprintf(stderr, "interval_floor: %s: %s\n", what, errno ? strerror(errno) : "bad input");
  exit(1);
}

static int by_phys(const void* a, const void* b) {
  const uint64_t x = ((const struct page*)a)->phys, y = ((const struct page*)b)->phys;
  return x < y ? -1 : x > y;
}

/* Digits of v at to; returns the end. */
static char* put_u64(char* to, uint64_t v) {
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *to++ = tmp[--n];
  return to;
}

static char* put_text(char* to, const char* s, size_t n) {
  memcpy(to, s, n);
  return to + n;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static char* joined(const char* a, const char* b, const char* c, size_t* n) {
  *n = strlen(a) + strlen(b) + strlen(c);
  char* s = malloc(*n + 1);
  if (!s) die("malloc");
  strcpy(s, a), strcat(s, b), strcat(s, c);
  return s;
}

static char* mapped(const struct page* pages, size_t n, uint64_t phys, uint64_t page) {
  struct page key = {phys & ~(page - 1), NULL};
  const struct page* p = bsearch(&key, pages, n, sizeof *pages, by_phys);
  return p->map + (phys - p->phys);
}

/* The plan's counters, each page they and their controls are on mapped once (shared), each
 * control saved and written. */
static struct counter* load_plan(const char* mem, const char* plan, size_t* count) {
  FILE* f = fopen(plan, "r");
  if (!f) die(plan);
  size_t n = 0, room = 1024;
  struct counter* c = malloc(room * sizeof *c);
  uint64_t* phys = malloc(room * sizeof *phys);
  char box[256], event[512];
  unsigned long long at, ctl;
  unsigned width, value;
  while (fscanf(f, "%llx %u %255s %511s %llx %x", &at, &width, box, event, &ctl, &value) == 6) {
    if (n == room) {
      room *= 2;
      c = realloc(c, room * sizeof *c), phys = realloc(phys, room * sizeof *phys);
      if (!c || !phys) die("realloc");
    }
    phys[n] = at;
    c[n].ctl_phys = ctl, c[n].value = value;
    c[n].mask = width >= 64 ? ~0ull : (1ull << width) - 1;
    c[n].pre = joined(",", box, ",", &c[n].pre_n);
    c[n].post = joined(",,", event, ",", &c[n].post_n);
    ++n;
  }
  fclose(f);
  if (!n) die(plan);
  const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  struct page* pages = malloc(2 * n * sizeof *pages);
  for (size_t i = 0; i < n; ++i) pages[i].phys = phys[i] & ~(page - 1);
  for (size_t i = 0; i < n; ++i) pages[n + i].phys = c[i].ctl_phys & ~(page - 1);
  qsort(pages, 2 * n, sizeof *pages, by_phys);
  size_t distinct = 0;
  int fd = open(mem, O_RDWR | O_CLOEXEC);
  if (fd < 0) die(mem);
  for (size_t i = 0; i < 2 * n; ++i) {
    if (distinct && pages[distinct - 1].phys == pages[i].phys) continue;
    pages[distinct].phys = pages[i].phys;
    pages[distinct].map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)pages[i].phys);
    if (pages[distinct].map == MAP_FAILED) die("mmap");
    ++distinct;
  }
  close(fd);
  for (size_t i = 0; i < n; ++i) {
    c[i].at = (const volatile uint64_t*)mapped(pages, distinct, phys[i], page);
    c[i].ctl = (volatile uint32_t*)mapped(pages, distinct, c[i].ctl_phys, page);
    c[i].saved = *c[i].ctl;
    *c[i].ctl = c[i].value;
  }
  for (size_t i = 0; i < n; ++i) c[i].last = *c[i].at;
  free(pages), free(phys);
  *count = n;
  return c;
}

/* One interval's lines into buf; returns their end. */
static char* interval(char* to, struct counter* c, size_t n, uint64_t since_start, uint64_t window) {
  char time[32], tail[48];
  char* t = put_u64(time, since_start / 1000000000u);
  *t++ = '.';
  const uint64_t frac = since_start % 1000000000u;
  for (uint64_t d = 100000000u; d; d /= 10) *t++ = (char)('0' + frac / d % 10);
  const size_t time_n = (size_t)(t - time);
  char* e = put_u64(tail, window);
  e = put_text(e, ",100.00,,\n", 10);
  const size_t tail_n = (size_t)(e - tail);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t raw = *c[i].at;
    const uint64_t delta = (raw - c[i].last) & c[i].mask;
    c[i].last = raw;
    to = put_text(to, time, time_n);
    to = put_text(to, c[i].pre, c[i].pre_n);
    to = put_u64(to, delta);
    to = put_text(to, c[i].post, c[i].post_n);
    to = put_text(to, tail, tail_n);
  }
  return to;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fputs("usage: interval_floor MEMFILE PLAN INTERVAL_MS COUNT OUT\n", stderr);
    return 2;
  }
  size_t n = 0;
  struct counter* c = load_plan(argv[1], argv[2], &n);
  const uint64_t step = strtoull(argv[3], NULL, 10) * 1000000u;
  const unsigned long count = strtoul(argv[4], NULL, 10);
  const int out = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) die(argv[5]);
  size_t room = 0;
  for (size_t i = 0; i < n; ++i) room += 32 + c[i].pre_n + 20 + c[i].post_n + 48;
  char* buf = malloc(room);
  if (!buf) die("malloc");
  const uint64_t t0 = now_ns();
  uint64_t last = t0, next = t0;
  for (unsigned long k = 0; k < count; ++k) {
    next += step;
    const struct timespec wake = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) == EINTR) {
    }
    const uint64_t now = now_ns();
    const char* end = interval(buf, c, n, now - t0, now - last);
    last = now;
    for (const char* p = buf; p < end;) {
      const ssize_t w = write(out, p, (size_t)(end - p));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) die("write");
      p += w;
    }
  }
  close(out);
  for (size_t i = 0; i < n; ++i) *c[i].ctl = c[i].saved;
  return 0;
}
