#include "backends/verbs/host_shared_memory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <string_view>

#include "fabric/error.hpp"

namespace twinfab::verbs {
namespace {

using fabric::Error;
using fabric::Status;

constexpr std::uint32_t kIdentityTag = 0x48494454;  // "HIDT"

struct Identity {
  std::uint32_t tag;
  std::int32_t pid;
  std::uint64_t host;
};

std::string prefix() { return fmt::format("twinfab-{}-", static_cast<unsigned>(getuid())); }

std::uint64_t host_hash() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return std::hash<std::string_view>{}(std::string_view(name));
}

// Whether process_vm_readv may read a process of this user: Yama (when built in)
// restricts ptrace-like access; scope 1 allows it once the target says who may
// (PR_SET_PTRACER), scopes 2 and 3 only with CAP_SYS_PTRACE, which the probe of this
// process cannot tell, so they count as refused.
bool allow_single_copy() {
  int scope = 0;
  if (std::ifstream yama("/proc/sys/kernel/yama/ptrace_scope"); yama) yama >> scope;
  if (scope >= 2 && geteuid() != 0) return false;
  if (scope == 1) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  // The system call itself (absent from some kernels and sandboxes: ENOSYS, EPERM).
  long word = 42, copy = 0;
  iovec local{&copy, sizeof copy}, remote{&word, sizeof word};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(sizeof word) && copy == 42;
}

class HostSegment final : public fabric::SharedSegment {
 public:
  HostSegment(std::string name, std::byte* data, std::size_t bytes, bool owner)
      : name_(std::move(name)), data_(data), bytes_(bytes), owner_(owner) {}
  ~HostSegment() override {
    if (owner_) unlink();
    munmap(data_, bytes_);
  }
  std::span<std::byte> bytes() noexcept override { return {data_, bytes_}; }
  std::span<const std::byte> name() const noexcept override {
    return {reinterpret_cast<const std::byte*>(name_.data()), name_.size()};
  }
  void unlink() noexcept override {
    if (owner_ && !unlinked_) shm_unlink(name_.c_str());
    unlinked_ = true;
  }

 private:
  const std::string name_;
  std::byte* const data_;
  const std::size_t bytes_;
  const bool owner_;
  bool unlinked_ = false;
};

class HostPeer final : public fabric::SharedPeer {
 public:
  explicit HostPeer(pid_t pid) : pid_(pid) {}
  Status read(void* local, std::uint64_t remote, std::size_t length) override {
    return transfer(local, remote, length, /*write=*/false);
  }
  Status write(std::uint64_t remote, const void* local, std::size_t length) override {
    return transfer(const_cast<void*>(local), remote, length, /*write=*/true);
  }
  void notify() override {}  // the peer's wait() looks at memory by itself (host_runtime.hpp)
  const std::string& last_error() const noexcept override { return error_; }

 private:
  Status transfer(void* local, std::uint64_t remote, std::size_t length, bool write) {
    // The kernel may move less than asked (a partial copy at a page it could not
    // reach, or more than its per-call limit): go on from where it stopped.
    std::size_t done = 0;
    while (done < length) {
      iovec l{static_cast<std::byte*>(local) + done, length - done};
      iovec r{reinterpret_cast<void*>(remote + done), length - done};
      const ssize_t n = write ? process_vm_writev(pid_, &l, 1, &r, 1, 0) : process_vm_readv(pid_, &l, 1, &r, 1, 0);
      if (n <= 0) {
        const int e = n < 0 ? errno : EFAULT;
        error_ = fmt::format("{} of {} bytes at {:#x} of process {} failed after {} bytes: {}",
                             write ? "process_vm_writev" : "process_vm_readv", length, remote, pid_, done,
                             std::strerror(e));
        return e == EFAULT ? Status::ProtectionError : Status::IoError;
      }
      done += static_cast<std::size_t>(n);
    }
    return Status::Ok;
  }
  const pid_t pid_;
  std::string error_;
};

}  // namespace

HostSharedMemory::HostSharedMemory() : single_copy_(allow_single_copy()), host_id_(host_hash()) {}

std::size_t HostSharedMemory::remove_stale_segments() {
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return 0;
  const std::string mine = prefix();
  std::size_t removed = 0;
  while (dirent* entry = readdir(dir)) {
    const std::string_view name(entry->d_name);
    if (name.substr(0, mine.size()) != mine) continue;
    const std::string_view rest = name.substr(mine.size());
    int pid = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
    if (ec != std::errc() || end == rest.data() + rest.size() || *end != '-' || pid <= 0) continue;
    if (kill(pid, 0) != 0 && errno == ESRCH && shm_unlink(("/" + std::string(name)).c_str()) == 0) ++removed;
  }
  closedir(dir);
  return removed;
}

std::unique_ptr<fabric::SharedSegment> HostSharedMemory::create(std::size_t bytes) {
  if (bytes == 0) throw Error(Status::InvalidArgument, "shared memory: a segment needs at least one byte");
  if (created_++ == 0) remove_stale_segments();
  // Numbered per process, not per device: ranks that are threads of one process (each
  // with a device of its own) share the pid.
  static std::atomic<unsigned> next{0};
  const std::string name = fmt::format("/{}{}-{}", prefix(), static_cast<int>(getpid()), next++);
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    throw Error(Status::IoError, fmt::format("shared memory: shm_open({}) failed: {}", name, std::strerror(errno)));
  // Reserve the pages now: a full /dev/shm is an error here, not a SIGBUS later.
  const int reserve = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  void* p = reserve == 0 ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  const int e = reserve != 0 ? reserve : p == MAP_FAILED ? errno : 0;
  close(fd);
  if (e != 0) {
    shm_unlink(name.c_str());
    throw Error(e == ENOSPC || e == ENOMEM ? Status::NoResource : Status::IoError,
                fmt::format("shared memory: could not make a segment of {} bytes in /dev/shm ({}): {}", bytes, name,
                            std::strerror(e)));
  }
  return std::make_unique<HostSegment>(name, static_cast<std::byte*>(p), bytes, /*owner=*/true);
}

std::unique_ptr<fabric::SharedSegment> HostSharedMemory::attach(std::span<const std::byte> name) {
  const std::string text(reinterpret_cast<const char*>(name.data()), name.size());
  if (text.size() < 2 || text.front() != '/' || text.find('/', 1) != std::string::npos ||
      text.find('\0') != std::string::npos)
    throw Error(Status::InvalidArgument, "shared memory: malformed segment name");
  const int fd = shm_open(text.c_str(), O_RDWR, 0600);
  if (fd < 0)
    throw Error(errno == ENOENT ? Status::NotFound : Status::IoError,
                fmt::format("shared memory: shm_open({}) failed: {}", text, std::strerror(errno)));
  struct stat st {};
  void* p = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED)
    throw Error(Status::IoError, fmt::format("shared memory: could not map {}: {}", text, std::strerror(e)));
  return std::make_unique<HostSegment>(text, static_cast<std::byte*>(p), static_cast<std::size_t>(st.st_size),
                                       /*owner=*/false);
}

std::vector<std::byte> HostSharedMemory::identity() const {
  const Identity id{kIdentityTag, static_cast<std::int32_t>(getpid()), host_id_};
  std::vector<std::byte> out(sizeof id);
  std::memcpy(out.data(), &id, sizeof id);
  return out;
}

std::unique_ptr<fabric::SharedPeer> HostSharedMemory::peer(std::span<const std::byte> identity) {
  Identity id{};
  if (identity.size() != sizeof id) throw Error(Status::InvalidArgument, "shared memory: malformed rank identity");
  std::memcpy(&id, identity.data(), sizeof id);
  if (id.tag != kIdentityTag || id.pid <= 0) throw Error(Status::InvalidArgument, "shared memory: malformed rank identity");
  if (id.host != host_id_)
    throw Error(Status::InvalidArgument, "shared memory: that rank runs on another host (its host name differs)");
  return std::make_unique<HostPeer>(static_cast<pid_t>(id.pid));
}

void HostSharedMemory::copy(void* to, const void* from, std::size_t length) {
  if (length > 0) std::memcpy(to, from, length);
}

}  // namespace twinfab::verbs
