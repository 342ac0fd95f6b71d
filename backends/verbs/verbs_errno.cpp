#include "backends/verbs/verbs_errno.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "fabric/error.hpp"

namespace twinfab::verbs {

std::string errno_message(std::string_view call, int err) {
  const char* name = strerrorname_np(err);
  return fmt::format("{}: {} ({})", call, std::strerror(err), name ? name : "?");
}

fabric::Status errno_status(int err) noexcept {
  switch (err) {
    case ENOMEM:
    case EAGAIN:
      return fabric::Status::NoResource;
    case EINVAL:
    case EFAULT:
    case ERANGE:
      return fabric::Status::InvalidArgument;
    case EOPNOTSUPP:
    case ENOSYS:
    case EPROTONOSUPPORT:
      return fabric::Status::Unsupported;
    case EPERM:
    case EACCES:
      return fabric::Status::ProtectionError;
    case ENODEV:
    case ENOENT:
    case ENXIO:
      return fabric::Status::NotFound;
    default:
      return fabric::Status::IoError;
  }
}

void throw_errno(std::string_view call, int err, std::string_view hint) {
  std::string msg = errno_message(call, err);
  if (!hint.empty()) msg += fmt::format("; {}", hint);
  throw fabric::Error(errno_status(err), msg);
}

}  // namespace twinfab::verbs
