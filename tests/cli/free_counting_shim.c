/* A preloaded free() that counts its calls (cli.preloaded_allocator_sees_frees): the
 * twinfab executable defines free itself (backends/sim/stack_interpose.cpp) and must
 * pass what is not its own to the next free in the lookup order -- an allocator or a
 * profiler loaded with LD_PRELOAD -- not to glibc directly. Prints the count at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void (*next_free)(void*);
static unsigned long frees;

void free(void* p) {
  if (p == NULL) return;
  if (next_free == NULL) next_free = (void (*)(void*))dlsym(RTLD_NEXT, "free");
  ++frees;
  next_free(p);
}

__attribute__((destructor)) static void report(void) {
  char line[64];
  const int n = snprintf(line, sizeof line, "free_shim: %lu frees\n", frees);
  if (n > 0) (void)!write(2, line, (size_t)n);
}
