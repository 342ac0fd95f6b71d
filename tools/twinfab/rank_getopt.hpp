// getopt's parsing position, per simulated rank.
//
// glibc keeps one getopt position per process: optind, optarg, optopt and a cursor of
// its own. A program reads it as its process's; under `twinfab sim` every rank runs in
// one process, so the second rank to parse its arguments started where the first had
// stopped (at the end: no options at all). The program's getopt calls are linked
// through mpi/capi's wrappers (ProgramServices::before_getopt/after_getopt), and this
// class swaps the position in and out:
//  - a rank's first call starts a new scan (optind = 0, glibc's documented way to
//    reset its cursor as well);
//  - a rank that calls again after another rank did gets its optind, optarg and
//    optopt back (glibc's cursor inside a group of short options, "-abc", is not
//    restored: a program that calls MPI between two getopt calls of one group is the
//    case that would see it);
//  - a program that sets optind itself (0 or 1 to parse again) gets what it set: libc's
//    variables are left alone while no other rank called getopt since this rank's
//    last call, and a value of optind other than the one libc left after the last
//    call is taken as the calling rank's own choice.
#pragma once

namespace twinfab::tools {

struct GetoptPosition {
  bool used = false;  ///< the rank has called getopt
  int optind = 1;
  int optopt = '?';
  char* optarg = nullptr;
};

class RankGetopt {
 public:
  /// Before a getopt call of the rank whose position is `rank`.
  void before(GetoptPosition& rank) noexcept;
  /// After it returned.
  void after(GetoptPosition& rank) noexcept;

 private:
  GetoptPosition* last_ = nullptr;  ///< whose position libc holds
  int left_optind_ = 0;              ///< optind as the last call left it
};

}  // namespace twinfab::tools
