// The program's own calls of libc's clock, sleep and getopt functions. twinfab-mpicc
// links programs with `-Wl,--wrap=<function>` for each of them, so a call the
// program's code makes arrives here (calls from libraries, std::chrono's included, go
// to libc directly). Under a host that runs several ranks in one process (`twinfab
// sim`) they go through its ProgramServices (rank_host.hpp): the clocks read the rank's
// simulated time, the sleeps spend it, and getopt parses with the rank's own position,
// as SMPI does for the same functions. Elsewhere (one rank per process on hardware, or
// a caller that is no rank) each is the libc function itself.
#include <getopt.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "mpi/capi/rank_host.hpp"

namespace {

using twinfab::mpi::capi::ProgramServices;

ProgramServices* services() noexcept { return twinfab::mpi::capi::rank_host().program_services(); }

timespec to_timespec(double seconds) noexcept {
  double whole = std::floor(seconds);
  auto nanos = static_cast<long>(std::llround((seconds - whole) * 1e9));
  if (nanos >= 1000000000L) {
    whole += 1;
    nanos -= 1000000000L;
  }
  return timespec{static_cast<time_t>(whole), nanos};
}

double to_seconds(const timespec& t) noexcept { return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9; }

template <typename Call>
int with_rank_position(ProgramServices& s, Call call) {
  s.before_getopt();
  const int result = call();
  s.after_getopt();
  return result;
}

}  // namespace

extern "C" {

// Declared here only: the wrappers are what --wrap links the program's calls to.
int __wrap_gettimeofday(struct timeval* tv, void* tz);
int __wrap_clock_gettime(clockid_t clock, struct timespec* tp);
time_t __wrap_time(time_t* out);
unsigned int __wrap_sleep(unsigned int seconds);
int __wrap_usleep(useconds_t microseconds);
int __wrap_nanosleep(const struct timespec* request, struct timespec* remaining);
int __wrap_getopt(int argc, char* const argv[], const char* optstring);
int __wrap_getopt_long(int argc, char* const argv[], const char* optstring, const struct option* longopts,
                       int* longindex);
int __wrap_getopt_long_only(int argc, char* const argv[], const char* optstring, const struct option* longopts,
                            int* longindex);

int __wrap_gettimeofday(struct timeval* tv, void* tz) {
  ProgramServices* s = services();
  if (s == nullptr) return gettimeofday(tv, tz);
  if (tv != nullptr) {
    const timespec t = to_timespec(s->now());
    tv->tv_sec = t.tv_sec;
    tv->tv_usec = static_cast<suseconds_t>(t.tv_nsec / 1000);
  }
  if (tz != nullptr) *static_cast<struct timezone*>(tz) = {};  // UTC, as the simulated epoch
  return 0;
}

int __wrap_clock_gettime(clockid_t clock, struct timespec* tp) {
  ProgramServices* s = services();
  // libc checks the clock id (and the pointer); every valid clock, CPU-time clocks
  // included, then reads the rank's simulated time.
  const int rc = clock_gettime(clock, tp);
  if (s == nullptr || rc != 0) return rc;
  *tp = to_timespec(s->now());
  return 0;
}

time_t __wrap_time(time_t* out) {
  ProgramServices* s = services();
  if (s == nullptr) return time(out);
  const time_t now = to_timespec(s->now()).tv_sec;
  if (out != nullptr) *out = now;
  return now;
}

unsigned int __wrap_sleep(unsigned int seconds) {
  ProgramServices* s = services();
  if (s == nullptr) return sleep(seconds);
  s->sleep_for(seconds);
  return 0;
}

int __wrap_usleep(useconds_t microseconds) {
  ProgramServices* s = services();
  if (s == nullptr) return usleep(microseconds);
  s->sleep_for(microseconds * 1e-6);
  return 0;
}

int __wrap_nanosleep(const struct timespec* request, struct timespec* remaining) {
  ProgramServices* s = services();
  if (s == nullptr) return nanosleep(request, remaining);
  if (request == nullptr || request->tv_nsec < 0 || request->tv_nsec > 999999999L || request->tv_sec < 0) {
    errno = EINVAL;
    return -1;
  }
  s->sleep_for(to_seconds(*request));
  if (remaining != nullptr) *remaining = timespec{0, 0};
  return 0;
}

int __wrap_getopt(int argc, char* const argv[], const char* optstring) {
  ProgramServices* s = services();
  if (s == nullptr) return getopt(argc, argv, optstring);
  return with_rank_position(*s, [&] { return getopt(argc, argv, optstring); });
}

int __wrap_getopt_long(int argc, char* const argv[], const char* optstring, const struct option* longopts,
                       int* longindex) {
  ProgramServices* s = services();
  if (s == nullptr) return getopt_long(argc, argv, optstring, longopts, longindex);
  return with_rank_position(*s, [&] { return getopt_long(argc, argv, optstring, longopts, longindex); });
}

int __wrap_getopt_long_only(int argc, char* const argv[], const char* optstring, const struct option* longopts,
                            int* longindex) {
  ProgramServices* s = services();
  if (s == nullptr) return getopt_long_only(argc, argv, optstring, longopts, longindex);
  return with_rank_position(*s, [&] { return getopt_long_only(argc, argv, optstring, longopts, longindex); });
}

}  // extern "C"
