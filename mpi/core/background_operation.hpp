// twinfab MPI core: an operation the context's progress engine advances on its own,
// between and during the rank's MPI calls: what a nonblocking collective's request
// stands for (mpi/coll/schedule.hpp builds them).
//
// Context::start_operation() takes one, advances it once at once (so its first
// messages leave before the call that started it returns) and then at every
// Context::progress(): any wait, test or probe of the rank drives it, which is what
// MPI's progress rule asks of a nonblocking collective (MPI-3.1 §5.12). When it is
// done, its request completes with status(), and wait/test report it as any other.
#pragma once

#include <cstddef>

#include "mpi/core/request.hpp"

namespace twinfab::mpi {

class Context;

class BackgroundOperation {
 public:
  virtual ~BackgroundOperation() = default;
  /// Does whatever can be done now without waiting: starts transfers whose turn has
  /// come, collects finished ones, runs local steps. Returns how many steps it took
  /// (0: it waits for transfers). Must not wait, and must not call progress().
  virtual std::size_t advance(Context& context) = 0;
  virtual bool done() const noexcept = 0;
  /// The request's status once done: empty on success, else the class of the first
  /// error (MessageStatus::error) and the rank it concerns.
  virtual MessageStatus status() const = 0;
};

}  // namespace twinfab::mpi
