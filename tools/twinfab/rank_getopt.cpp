#include "tools/twinfab/rank_getopt.hpp"

#include <getopt.h>

namespace twinfab::tools {

void RankGetopt::before(GetoptPosition& rank) noexcept {
  if (last_ == &rank) return;
  if (last_ != nullptr && ::optind != left_optind_) return;  // the program just set it: its scan
  if (!rank.used) {
    ::optind = 0;
    ::optarg = nullptr;
    return;
  }
  ::optind = rank.optind;
  ::optarg = rank.optarg;
  ::optopt = rank.optopt;
}

void RankGetopt::after(GetoptPosition& rank) noexcept {
  rank.used = true;
  rank.optind = ::optind;
  rank.optarg = ::optarg;
  rank.optopt = ::optopt;
  last_ = &rank;
  left_optind_ = ::optind;
}

}  // namespace twinfab::tools
