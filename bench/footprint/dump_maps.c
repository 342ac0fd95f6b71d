/* Preloaded into a traced program by bench/footprint.sh: at exit, copies the process's
 * /proc/self/maps to $FOOTPRINT_MAPS, so that the addresses in a valgrind trace can be
 * told apart (stacks, heap, libraries' data) and its instructions symbolized. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((destructor)) static void footprint_dump_maps(void) {
  const char* path = getenv("FOOTPRINT_MAPS");
  if (path == NULL) return;
  FILE* in = fopen("/proc/self/maps", "r");
  FILE* out = fopen(path, "w");
  if (in != NULL && out != NULL) {
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0) fwrite(buffer, 1, n, out);
  }
  if (in != NULL) fclose(in);
  if (out != NULL) fclose(out);
}
