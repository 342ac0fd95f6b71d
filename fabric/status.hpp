// twinfab fabric contract: the status every operation returns.
//
// Every fabric operation is non-blocking and returns a Status. `InProgress` and
// `NoResource` are part of the contract, not errors: `NoResource` means back-pressure
// (queue full, no credits) and the caller retries after progress.
#pragma once

#include <string_view>

namespace twinfab::fabric {

// X-macro list: name, description. One list, one to_string (Mercury NA style).
#define TWINFAB_STATUS_LIST(X)                                                         \
  X(Ok, "ok")                                                                          \
  X(InProgress, "operation in progress")                                               \
  X(NoResource, "no resource (queue full): retry after progress")                      \
  X(Unsupported, "operation not supported by this device")                             \
  X(InvalidArgument, "invalid argument")                                               \
  X(InvalidState, "object is in a state that does not allow this operation")           \
  X(NotFound, "not found")                                                             \
  X(Timeout, "deadline reached")                                                       \
  X(ProtectionError, "local protection error (bad lkey or access)")                    \
  X(IoError, "device or system error")

enum class Status {
#define TWINFAB_STATUS_ENUM(name, text) name,
  TWINFAB_STATUS_LIST(TWINFAB_STATUS_ENUM)
#undef TWINFAB_STATUS_ENUM
};

/// Short name of the status, e.g. "NoResource".
std::string_view to_string(Status status) noexcept;
/// One-line human description, e.g. "no resource (queue full): retry after progress".
std::string_view describe(Status status) noexcept;

inline bool ok(Status s) noexcept { return s == Status::Ok; }

}  // namespace twinfab::fabric
