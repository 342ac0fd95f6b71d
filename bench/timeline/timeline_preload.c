/* timeline_preload.so: where a small message's latency goes on a verbs device, for
 * any verbs program (perftest's ib_send_lat as well as an MPI ping-pong), without
 * changing it. Loaded with LD_PRELOAD into both processes of a ping-pong, it records
 * with the TSC (shared by every CPU of the machine, so the two processes' records
 * line up):
 *   - every write() (entry, exit, size): software devices (rxe, siw) ring the send
 *     queue's doorbell with a write() on the verbs command file, so the doorbell is
 *     the program's most frequent write size;
 *   - every CQ poll that returns a receive completion (the moment the process sees
 *     the message), and when the run of empty polls before it began (its polling
 *     loop's speed).
 * CQ polls are seen by wrapping the device context's poll_cq entry (ibv_poll_cq is
 * an inline call through it) when the program creates a CQ.
 *
 * At exit each process writes "$TWINFAB_TIMELINE_DIR/<TWINFAB_TIMELINE_TAG>.<pid>.txt",
 * one event per line: "<kind> <tsc>" with kind W<size> (write entry), X (write exit),
 * D (receive seen), E<n> <tsc> (n empty polls began at tsc, just before a D), and a
 * first line "HZ <tsc ticks per second>". bench/timeline/timeline.py reads them;
 * bench/vm_latency_timeline.sh runs the whole comparison in the micro-VM.
 * Measurement only: nothing here changes what the program does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

enum { kCapacity = 1 << 20 };  /* events kept; later ones are dropped */

struct event {
  char kind;       /* 'W', 'X', 'D', 'E' */
  uint32_t value;  /* write size; number of empty polls */
  uint64_t tsc;
};

static struct event events[kCapacity];
static unsigned count;
static ssize_t (*real_write)(int, const void*, size_t);
static int (*real_poll_cq)(struct ibv_cq*, int, struct ibv_wc*);
static struct ibv_cq* (*real_create_cq)(struct ibv_context*, int, void*, struct ibv_comp_channel*, int);
static uint32_t empty_polls;
static uint64_t empty_since;
static uint64_t start_tsc;
static struct timespec start_time;

static void record(char kind, uint32_t value, uint64_t tsc) {
  if (count < kCapacity) events[count++] = (struct event){kind, value, tsc};
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((constructor)) static void timeline_start(void) {
  clock_gettime(CLOCK_MONOTONIC, &start_time);
  start_tsc = __rdtsc();
}

ssize_t write(int fd, const void* buffer, size_t size) {
  if (real_write == NULL) real_write = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  const uint64_t entry = __rdtsc();
  const ssize_t result = real_write(fd, buffer, size);
  const uint64_t exit = __rdtsc();
  record('W', (uint32_t)size, entry);
  record('X', (uint32_t)size, exit);
  return result;
}

static int timeline_poll_cq(struct ibv_cq* cq, int entries, struct ibv_wc* wc) {
  const int n = real_poll_cq(cq, entries, wc);
  if (n == 0) {
    if (empty_polls++ == 0) empty_since = __rdtsc();
    return n;
  }
  if (n < 0) return n;
  for (int i = 0; i < n; ++i) {
    if (wc[i].status == IBV_WC_SUCCESS && (wc[i].opcode & IBV_WC_RECV)) {
      const uint64_t seen = __rdtsc();
      if (empty_polls > 0) record('E', empty_polls, empty_since);
      record('D', 0, seen);
      break;
    }
  }
  empty_polls = 0;
  return n;
}

struct ibv_cq* ibv_create_cq(struct ibv_context* context, int cqe, void* cq_context,
                             struct ibv_comp_channel* channel, int comp_vector) {
  if (real_create_cq == NULL)
    real_create_cq = (struct ibv_cq * (*)(struct ibv_context*, int, void*, struct ibv_comp_channel*, int))
        dlsym(RTLD_NEXT, "ibv_create_cq");
  /* One device per program here: the first poll_cq seen is the one to wrap. */
  if (context->ops.poll_cq != timeline_poll_cq) {
    real_poll_cq = context->ops.poll_cq;
    context->ops.poll_cq = timeline_poll_cq;
  }
  return real_create_cq(context, cqe, cq_context, channel, comp_vector);
}

__attribute__((destructor)) static void timeline_dump(void) {
  const char* dir = getenv("TWINFAB_TIMELINE_DIR");
  const char* tag = getenv("TWINFAB_TIMELINE_TAG");
  if (dir == NULL || count == 0) return;
  /* TSC rate from this process's life: ticks over nanoseconds since the constructor. */
  const uint64_t end_tsc = __rdtsc();
  const uint64_t end_ns = now_ns();
  const uint64_t begin_ns = (uint64_t)start_time.tv_sec * 1000000000u + (uint64_t)start_time.tv_nsec;
  if (end_ns <= begin_ns) return;
  const double hz = (double)(end_tsc - start_tsc) * 1e9 / (double)(end_ns - begin_ns);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d.txt", dir, tag != NULL ? tag : "run", (int)getpid());
  FILE* out = fopen(path, "w");
  if (out == NULL) return;
  fprintf(out, "HZ %.0f\n", hz);
  for (unsigned i = 0; i < count; ++i) {
    const struct event* e = &events[i];
    if (e->kind == 'W' || e->kind == 'E')
      fprintf(out, "%c%u %llu\n", e->kind, e->value, (unsigned long long)e->tsc);
    else
      fprintf(out, "%c %llu\n", e->kind, (unsigned long long)e->tsc);
  }
  fclose(out);
}
