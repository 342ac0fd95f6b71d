// Internal: turning errno values from libibverbs/librdmacm into fabric statuses and
// messages, in one place so that every call site words failures the same way.
#pragma once

#include <string>
#include <string_view>

#include "fabric/status.hpp"

namespace twinfab::verbs {

/// "ibv_modify_qp(RTR): Invalid argument (EINVAL)".
std::string errno_message(std::string_view call, int err);

/// The status a failed data-path call maps to: ENOMEM/EAGAIN -> NoResource (the
/// provider's queue is full), EINVAL -> InvalidArgument, EOPNOTSUPP/ENOSYS ->
/// Unsupported, EPERM/EACCES -> ProtectionError, anything else -> IoError.
fabric::Status errno_status(int err) noexcept;

/// Throws fabric::Error(errno_status(err), errno_message(call, err) + hint).
[[noreturn]] void throw_errno(std::string_view call, int err, std::string_view hint = {});

}  // namespace twinfab::verbs
