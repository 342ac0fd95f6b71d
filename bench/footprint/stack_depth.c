// How deep each simulated rank's stack went, and where a rank's resident pages are:
// an LD_PRELOAD shim for `twinfab sim` (a diagnostic; not built by CMake).
//
//   gcc -O2 -shared -fPIC -o /tmp/stack_depth.so bench/footprint/stack_depth.c -ldl
//   TWINFAB_SIM_ALL_HOSTS=1 LD_PRELOAD=/tmp/stack_depth.so build/tools/twinfab/twinfab sim
//       -n 1024 --platform fat-tree-4096 build/tests/mpi/c/ring_wall 20
//
// SimGrid allocates each rank's stack with posix_memalign (page-aligned, stack size
// plus a guard page; sim_fabric.cpp keeps them on the heap). The shim records those
// blocks (>= 1 MiB, page-aligned) and, when each is freed (or at exit), finds its
// lowest non-zero word: the depth the rank's stack reached (fresh heap pages are
// zero). Printed at exit: the depths in 256-byte buckets. A stack deeper than 4096
// bytes costs a second page per rank. At the first stack free (the end of the run,
// every other rank's state still live) it also prints glibc's mallinfo2 and the
// resident pages (mincore) of the anonymous and file mappings, of the stack blocks
// and of the page below each block (its malloc header; small objects fill the rest).
// Run at N and 2N ranks and divide the differences by N for figures per rank.
//
//   STACKPROBE_DUMP=k      print the lowest words of stack k, with the symbol of each
//                          (return addresses name the frames of the deepest call)
//   STACKPROBE_PROTECT=k   make the second page of stack k inaccessible, so that a
//                          debugger stops at the instruction that first reaches it
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdint.h>
#include <malloc.h>
static int reported_mi;

#define MAXS 70000
static void* bases[MAXS];
static size_t sizes[MAXS];
static int nstacks;
static long hist[1024];  // depth in 256-byte buckets
static long maxdepth, mindepth = 1 << 30;
static int (*real_pm)(void**, size_t, size_t);
static void (*real_free)(void*);
static int protect_k = -1;

static long count_resident(char* lo, char* hi) {
  lo = (char*)((uintptr_t)lo & ~4095ul);
  hi = (char*)(((uintptr_t)hi + 4095) & ~4095ul);
  if (hi <= lo) return 0;
  size_t n = (hi - lo) / 4096;
  unsigned char* v = malloc(n);
  long c = 0;
  if (mincore(lo, hi - lo, v) == 0) for (size_t k = 0; k < n; ++k) c += v[k] & 1;
  else c = -1;
  free(v);
  return c;
}
static void residency(void) {
    FILE* f = fopen("/proc/self/maps", "r");
  char line[512];
  unsigned long hlo = 0, hhi = 0;
  long total = 0, files = 0;
  while (fgets(line, sizeof line, f)) {
    char perms[8]; unsigned long off, ino; char dev[16]; char path[256] = "";
    sscanf(line, "%lx-%lx %7s %lx %15s %lu %255s", &hlo, &hhi, perms, &off, dev, &ino, path);
    if (perms[0] != 'r') continue;
    long c = count_resident((char*)hlo, (char*)hhi);
    if (path[0] == 0 || strcmp(path, "[heap]") == 0) total += c; else files += c;
  }
  fclose(f);
  fprintf(stderr, "stackprobe: resident pages in anonymous mappings %ld, file mappings %ld\n", total, files);
  long in_stacks = 0, in_gaps_below = 0;
  for (int i = 0; i < nstacks; ++i) {
    if (!bases[i]) continue;
    in_stacks += count_resident(bases[i], (char*)bases[i] + sizes[i]);
    in_gaps_below += count_resident((char*)bases[i] - 4096, (char*)bases[i]);
  }
  fprintf(stderr, "stackprobe: of the anonymous pages, %ld in stacks, %ld in the page below each stack, %ld other\n",
          in_stacks, in_gaps_below, total - in_stacks - in_gaps_below);
}
static void measure(int i) {
  unsigned char* lo = (unsigned char*)bases[i] + 4096 * 2;  // skip guard page
  unsigned char* top = (unsigned char*)bases[i] + sizes[i];
  unsigned char* p = lo;
  while (p < top && *(uint64_t*)p == 0) p += 8;
  long depth = top - p;
  if (getenv("STACKPROBE_DUMP") && i == atoi(getenv("STACKPROBE_DUMP"))) {
    fprintf(stderr, "stack %d top %p lowest nonzero at top-%ld:\n", i, top, depth);
    for (unsigned char* q = p; q < p + 1024 && q < top; q += 8)
      if (*(uint64_t*)q) {
        Dl_info info;
        const char* sym = "";
        long off = 0;
        const char* obj = "";
        if (dladdr(*(void**)q, &info) && info.dli_fname) {
          obj = info.dli_fname;
          if (info.dli_sname) { sym = info.dli_sname; off = (char*)*(void**)q - (char*)info.dli_saddr; }
          else off = (char*)*(void**)q - (char*)info.dli_fbase;
        }
        fprintf(stderr, "  top-%ld: %#lx %s %s+%#lx\n", (long)(top - q), *(unsigned long*)q, obj, sym, off);
      }
  }
  if (depth > maxdepth) maxdepth = depth;
  if (depth < mindepth) mindepth = depth;
  long b = depth / 256;
  if (b > 1023) b = 1023;
  hist[b]++;
  bases[i] = NULL;
}

int posix_memalign(void** out, size_t align, size_t size) {
  if (!real_pm) {
    real_pm = dlsym(RTLD_NEXT, "posix_memalign");
    const char* e = getenv("STACKPROBE_PROTECT");
    if (e) protect_k = atoi(e);
  }
  int r = real_pm(out, align, size);
  if (r == 0 && align == 4096 && size >= (1u << 20) && nstacks < MAXS) {
    bases[nstacks] = *out;
    sizes[nstacks] = size;
    if (nstacks == protect_k) {
      unsigned char* top = (unsigned char*)*out + size;
      mprotect(top - 8192, 4096, PROT_NONE);
      fprintf(stderr, "stackprobe: stack %d at %p..%p, protected %p\n", nstacks, *out, top, top - 8192);
    }
    nstacks++;
  }
  return r;
}

void free(void* p) {
  if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
  if (p && ((uintptr_t)p & 4095) == 0)
    for (int i = nstacks - 1; i >= 0; --i)
      if (bases[i] == p) {
        if (!reported_mi) {
          reported_mi = 1;
          struct mallinfo2 mi = mallinfo2();
          fprintf(stderr, "stackprobe: at first stack free: arena %zu in use %zu free %zu mmap %zu (%zu blocks) free chunks %zu fastbin %zu keepcost %zu\n",
                  mi.arena, mi.uordblks, mi.fordblks, mi.hblkhd, mi.hblks, mi.ordblks, mi.fsmblks, mi.keepcost);
        }
        if (reported_mi == 1) { residency(); reported_mi = 2; } measure(i); break; }
  real_free(p);
}

__attribute__((destructor)) static void report(void) {
  for (int i = 0; i < nstacks; ++i) if (bases[i]) measure(i);
  fprintf(stderr, "stackprobe: %d stacks, depth min %ld max %ld bytes\n", nstacks, mindepth, maxdepth);
  for (int b = 0; b < 1024; ++b)
    if (hist[b]) fprintf(stderr, "  %5d-%5d: %ld\n", b * 256, b * 256 + 255, hist[b]);
}
