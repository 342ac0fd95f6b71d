// The command line's conventions, shared by every `twinfab` command: exit statuses and
// the check that a numeric option's value is a number.
//
// Exit statuses (documented in README.md, "Exit statuses"):
//   0            success
//   1            run failure: twinfab could not do what the command line asked
//                (platform file refused, out of memory, device missing, I/O error,
//                a program that cannot be loaded)
//   2            usage error: the command line itself was refused, nothing ran
//                (unknown command or option, a value that is not a number or out of
//                range, a missing argument); as argparse and most Unix tools do
//   other        `twinfab sim` only: the program's own status (the first nonzero
//                status a rank returned, MPI_Abort's code, the error class of a fatal
//                MPI error, 128 + N when a rank died of signal N). A program may also
//                return 1 or 2: twinfab's own failures always print a line starting
//                "twinfab: error:" (run failure) or name the option (usage error).
#pragma once

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

namespace twinfab::tools {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitRunFailure = 1;
inline constexpr int kExitUsage = 2;

/// A command-line value refused after parsing (a check that needs several options, or
/// the value's meaning): exits kExitUsage with "twinfab: usage error: <what>".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Refuses a value that is not a number before CLI11 converts it, with "'abc' is not a
/// number" (CLI11 alone says "Could not convert" or "Value abc could not be converted").
/// `whole`: the option takes an integer ("'1.5' is not a whole number").
CLI::Validator number_check(bool whole);

}  // namespace twinfab::tools
