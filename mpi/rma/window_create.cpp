// twinfab MPI one-sided: making and freeing windows (MPI-3.1 §11.2).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "fabric/log.hpp"
#include "mpi/coll/collectives.hpp"
#include "mpi/rma/rma_engine.hpp"

namespace twinfab::mpi::rma {

namespace {

constexpr fabric::Access kWindowAccess =
    fabric::Access::LocalWrite | fabric::Access::RemoteWrite | fabric::Access::RemoteRead;

fabric::Access window_access(const fabric::DeviceCapabilities& caps) {
  return caps.atomics ? kWindowAccess | fabric::Access::RemoteAtomic : kWindowAccess;
}

void check_size(std::int64_t size, int disp_unit, const char* where) {
  if (size < 0)
    throw Error(ErrorClass::MPI_ERR_SIZE, fmt::format("{}(size={})", where, size), "the size must not be negative");
  if (disp_unit <= 0)
    throw Error(ErrorClass::MPI_ERR_DISP, fmt::format("{}(disp_unit={})", where, disp_unit),
                "the displacement unit must be positive");
}

}  // namespace

RmaEngine::RmaEngine(Context& context) : context_(context), work_(context.device()), counters_(context.rma_counters()) {
  context_.set_rdma_completion_handler(this);
}

RmaEngine::~RmaEngine() {
  if (hooked_) context_.remove_progress_hook(this);
  context_.set_rdma_completion_handler(nullptr);
}

bool RmaEngine::is_live(const Window* window) const noexcept {
  return std::any_of(windows_.begin(), windows_.end(), [window](const auto& w) { return w.get() == window; });
}

void RmaEngine::resolve_designs(Window& window, const char* where) {
  const Config& config = context_.config();
  const fabric::DeviceCapabilities& caps = context_.capabilities();
  // RDMA where the channel has it (put and get need write and read); otherwise seed
  // 001's send/receive baseline.
  const ChannelCapabilities& channel = context_.channel_capabilities();
  const bool rdma = channel.rdma_write && channel.rdma_read;
  window.design = config.rma == RmaDesign::Auto ? (rdma ? RmaDesign::Rdma : RmaDesign::SendRecv) : config.rma;
  if (window.design == RmaDesign::Rdma && !rdma)
    throw Error(ErrorClass::MPI_ERR_UNSUPPORTED_OPERATION, fmt::format("{} (TWINFAB_RMA=rdma)", where),
                "the channel (TWINFAB_TRANSPORT) has no RDMA write and read; use TWINFAB_RMA=sendrecv or auto");
  RmaLockDesign lock = config.rma_lock;
  if (lock == RmaLockDesign::Auto) {
    lock = caps.atomics ? RmaLockDesign::TestAndSet : RmaLockDesign::TargetProgress;
    if (!caps.atomics && context_.world().rank() == 0 && next_window_id_ == 1)
      fabric::log().info("MPI one-sided: device {} has no remote atomics; passive-target locks use the progress "
                         "design (TWINFAB_RMA_LOCK=progress)",
                         caps.device_name);
  }
  switch (lock) {
    case RmaLockDesign::TestAndSet:
    case RmaLockDesign::Mcs:
      if (!caps.atomics)
        throw Error(ErrorClass::MPI_ERR_UNSUPPORTED_OPERATION,
                    fmt::format("{} (TWINFAB_RMA_LOCK={})", where, to_string(lock)),
                    fmt::format("the {} lock design needs remote atomics, which device {} does not have; "
                                "use TWINFAB_RMA_LOCK=thread, event or progress (or auto)",
                                lock == RmaLockDesign::Mcs ? "MCS" : "test-and-set", caps.device_name));
      break;
    default:
      break;
  }
  window.lock_design = lock;
  if (config.rma_accumulate == RmaAccumulate::Atomics && (window.design != RmaDesign::Rdma || !caps.atomics))
    throw Error(ErrorClass::MPI_ERR_UNSUPPORTED_OPERATION, fmt::format("{} (TWINFAB_RMA_ACCUMULATE=atomics)", where),
                !caps.atomics ? fmt::format("accumulates by the HCA's atomics need remote atomics, which device {} "
                                            "does not have; use TWINFAB_RMA_ACCUMULATE=messages",
                                            caps.device_name)
                              : std::string("accumulates by the HCA's atomics need the RDMA design (TWINFAB_RMA=rdma "
                                            "or auto on a channel with RDMA); use TWINFAB_RMA_ACCUMULATE=messages"));
}

Window* RmaEngine::make_window(const Communicator& comm, Flavor flavor, const char* where) {
  context_.check_comm(comm, where);
  if (comm.is_inter())
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where), "windows need an intracommunicator");
  auto window = std::make_unique<Window>();
  resolve_designs(*window, where);  // before anything collective: every rank refuses alike
  window->id = next_window_id_++;
  window->flavor = flavor;
  // Per window, so that every operation on one location takes the same path: a dynamic
  // window's memory has no rkey of its own, a shared window's neighbours use the CPU.
  window->hca_accumulates = context_.config().rma_accumulate == RmaAccumulate::Atomics &&
                            (flavor == Flavor::Create || flavor == Flavor::Allocate);
  window->comm = context_.comm_dup(comm);
  window->layout.members = static_cast<std::size_t>(comm.size());
  window->control_words.assign(window->layout.words(), 0);
  window->control_region = context_.device().register_memory(
      window->control_words.data(), window->control_words.size() * sizeof(std::uint64_t),
      window_access(context_.capabilities()));
  if (!hooked_) {
    context_.add_progress_hook(this);
    hooked_ = true;
  }
  windows_.push_back(std::move(window));
  return windows_.back().get();
}

void RmaEngine::publish(Window& window, const char* where) {
  (void)where;
  if (window.size > 0 && window.base != nullptr && window.flavor != Flavor::Dynamic)
    window.region =
        context_.device().register_memory(window.base, window.size, window_access(context_.capabilities()));
  PeerWindow mine;
  mine.base = reinterpret_cast<std::uint64_t>(window.base);
  mine.size = window.size;
  mine.disp_unit = window.disp_unit;
  mine.rkey = window.region ? window.region->rkey() : 0;
  mine.control = reinterpret_cast<std::uint64_t>(window.control_words.data());
  mine.control_rkey = window.control_region->rkey();
  mine.node = context_.node().value_or(-1);
  window.peers.resize(static_cast<std::size_t>(window.comm->size()));
  const DatatypePtr& bytes = context_.datatype(BasicKind::Byte);
  allgather(context_, &mine, sizeof(PeerWindow), bytes, window.peers.data(), sizeof(PeerWindow), bytes,
            *window.comm);
  if (window.lock_design == RmaLockDesign::Thread || window.lock_design == RmaLockDesign::Event)
    start_lock_service(window, where);
}

Window* RmaEngine::create(void* base, std::int64_t size, int disp_unit, const Communicator& comm,
                          const char* where) {
  check_size(size, disp_unit, where);
  if (base == nullptr && size > 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(base=NULL, size={})", where, size),
                "a window with memory needs its address");
  Window* window = make_window(comm, Flavor::Create, where);
  window->base = size > 0 ? base : nullptr;
  window->size = static_cast<std::uint64_t>(size);
  window->disp_unit = disp_unit;
  publish(*window, where);
  return window;
}

Window* RmaEngine::allocate(std::int64_t size, int disp_unit, const Communicator& comm, const char* where) {
  check_size(size, disp_unit, where);
  Window* window = make_window(comm, Flavor::Allocate, where);
  if (size > 0) {
    // new std::byte[] is aligned for any scalar (16 bytes), which remote atomics and
    // MPI's "suitably aligned" (MPI-3.1 §11.2.2) ask for.
    window->owned = std::make_unique<std::byte[]>(static_cast<std::size_t>(size));
    window->base = window->owned.get();
  }
  window->size = static_cast<std::uint64_t>(size);
  window->disp_unit = disp_unit;
  publish(*window, where);
  return window;
}

Window* RmaEngine::allocate_shared(std::int64_t size, int disp_unit, const Communicator& comm,
                                   const char* where) {
  check_size(size, disp_unit, where);
  // Every member must be on one host: agree on it before allocating anything.
  const int node = context_.node().value_or(-1);
  int nodes[2] = {node, -node};
  allreduce(context_, kInPlace, nodes, 2, context_.datatype(BasicKind::Int), Op::Max, comm);
  if (node < 0 || nodes[0] != -nodes[1])
    throw Error(ErrorClass::MPI_ERR_RMA_SHARED, fmt::format("{}(comm)", where),
                "the members of the communicator are not all on one host (or the launcher did not say where "
                "they run); MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) makes such a communicator");
  Window* window = make_window(comm, Flavor::Shared, where);
  window->disp_unit = disp_unit;
  window->size = static_cast<std::uint64_t>(size);
  // Each member's part starts 16-byte aligned after the previous member's.
  const std::int64_t padded = (size + 15) / 16 * 16;
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(comm.size()));
  allgather(context_, &padded, 1, context_.datatype(BasicKind::Int64), sizes.data(), 1,
            context_.datatype(BasicKind::Int64), *window->comm);
  window->shared_offsets.assign(sizes.size(), 0);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    window->shared_offsets[i] = total;
    total += static_cast<std::uint64_t>(sizes[i]);
  }
  // One POSIX shared-memory segment for the node: member 0 creates it, names it in a
  // broadcast, the others map it, and it is unlinked once all have (processes on
  // hardware; simulated ranks map it too, at addresses of their own).
  char name[64] = {};
  const std::size_t bytes = std::max<std::uint64_t>(total, 1);
  if (window->comm->rank() == 0)
    std::snprintf(name, sizeof name, "/twinfab-win-%d-%u-%d", static_cast<int>(getpid()), window->id,
                  context_.world().rank());
  bcast(context_, name, sizeof name, context_.datatype(BasicKind::Char), 0, *window->comm);
  int error = 0;
  int fd = -1;
  if (window->comm->rank() == 0) {
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) error = errno != 0 ? errno : EIO;
  }
  bcast(context_, &error, 1, context_.datatype(BasicKind::Int), 0, *window->comm);
  if (error == 0 && window->comm->rank() != 0) {
    fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) error = errno;
  }
  void* mapping = MAP_FAILED;
  if (error == 0) {
    mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) error = errno;
  }
  if (fd >= 0) close(fd);
  allreduce(context_, kInPlace, &error, 1, context_.datatype(BasicKind::Int), Op::Max, *window->comm);
  if (window->comm->rank() == 0) shm_unlink(name);
  if (error != 0) {
    if (mapping != MAP_FAILED) munmap(mapping, bytes);
    Window* failed = window;
    free(failed, where);
    throw Error(ErrorClass::MPI_ERR_RMA_SHARED, where,
                fmt::format("could not make the node's shared segment of {} bytes: {}", bytes, std::strerror(error)));
  }
  window->shared_mapping = mapping;
  window->shared_mapping_bytes = bytes;
  window->base = size > 0 ? static_cast<std::byte*>(mapping) + window->shared_offsets[window->comm->rank()] : nullptr;
  publish(*window, where);
  return window;
}

Window* RmaEngine::create_dynamic(const Communicator& comm, const char* where) {
  Window* window = make_window(comm, Flavor::Dynamic, where);
  publish(*window, where);
  return window;
}

void RmaEngine::attach(Window& window, void* base, std::int64_t size, const char* where) {
  if (window.flavor != Flavor::Dynamic)
    throw Error(ErrorClass::MPI_ERR_RMA_FLAVOR, fmt::format("{}(win)", where),
                "only a window of MPI_Win_create_dynamic takes attached memory");
  if (size < 0)
    throw Error(ErrorClass::MPI_ERR_SIZE, fmt::format("{}(size={})", where, size), "the size must not be negative");
  if (size == 0) return;
  if (base == nullptr)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(base=NULL)", where), "attached memory needs its address");
  const auto start = reinterpret_cast<std::uint64_t>(base);
  const std::uint64_t end = start + static_cast<std::uint64_t>(size);
  auto next = window.attached.lower_bound(start);
  const bool overlaps_next = next != window.attached.end() && next->first < end;
  const bool overlaps_prev = next != window.attached.begin() && std::prev(next)->first + std::prev(next)->second.size > start;
  if (overlaps_next || overlaps_prev)
    throw Error(ErrorClass::MPI_ERR_RMA_ATTACH, fmt::format("{}(base={}, size={})", where, base, size),
                "the memory overlaps a region already attached to this window");
  window.attached.emplace(start, AttachedRegion{static_cast<std::uint64_t>(size)});
}

void RmaEngine::detach(Window& window, const void* base, const char* where) {
  if (window.flavor != Flavor::Dynamic)
    throw Error(ErrorClass::MPI_ERR_RMA_FLAVOR, fmt::format("{}(win)", where),
                "only a window of MPI_Win_create_dynamic has attached memory");
  auto it = window.attached.find(reinterpret_cast<std::uint64_t>(base));
  if (it == window.attached.end())
    throw Error(ErrorClass::MPI_ERR_RMA_ATTACH, fmt::format("{}(base={})", where, base),
                "no region attached to this window starts at this address");
  window.attached.erase(it);
}

void RmaEngine::shared_query(const Window& window, int rank, std::int64_t* size, int* disp_unit, void** base,
                             const char* where) const {
  if (window.flavor != Flavor::Shared)
    throw Error(ErrorClass::MPI_ERR_RMA_FLAVOR, fmt::format("{}(win)", where),
                "only a window of MPI_Win_allocate_shared can be queried");
  const int n = window.comm->size();
  if (rank != kProcNull && (rank < 0 || rank >= n))
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(rank={})", where, rank),
                fmt::format("invalid rank; the window's group has {} ranks", n));
  int r = rank;
  if (r == kProcNull) {
    r = 0;
    while (r < n && window.peers[static_cast<std::size_t>(r)].size == 0) ++r;
    if (r == n) {
      *size = 0;
      *disp_unit = window.peers[0].disp_unit;
      *base = nullptr;
      return;
    }
  }
  const PeerWindow& peer = window.peers[static_cast<std::size_t>(r)];
  *size = static_cast<std::int64_t>(peer.size);
  *disp_unit = peer.disp_unit;
  *base = peer.size > 0 ? static_cast<std::byte*>(window.shared_mapping) + window.shared_offsets[static_cast<std::size_t>(r)]
                        : nullptr;
}

void RmaEngine::free(Window*& window, const char* where) {
  Window& w = checked(window);
  if (w.epoch.any())
    throw Error(ErrorClass::MPI_ERR_RMA_SYNC, fmt::format("{}(win)", where),
                w.epoch.started   ? "an access epoch of MPI_Win_start is still open (call MPI_Win_complete)"
                : w.epoch.posted  ? "an exposure epoch of MPI_Win_post is still open (call MPI_Win_wait)"
                : w.epoch.lock_all ? "MPI_Win_lock_all's epoch is still open (call MPI_Win_unlock_all)"
                                   : "a lock is still held (call MPI_Win_unlock)");
  complete_all(w, false, where);
  // Nobody may still be reaching this rank's memory: meet the others, then serve
  // until the replies this rank sends as a target have left.
  barrier(context_, *w.comm);
  if (w.lock_service) {
    w.lock_service->close(where);  // every member is done with locks: the agents end
    w.lock_service.reset();
  }
  while (!w.replies.empty() || !w.incoming.empty()) {
    if (serve(w) == 0) context_.progress_or_wait();
  }
  const Communicator* comm = w.comm;
  if (w.shared_mapping != nullptr) munmap(w.shared_mapping, w.shared_mapping_bytes);
  windows_.erase(std::find_if(windows_.begin(), windows_.end(), [&](const auto& p) { return p.get() == &w; }));
  context_.comm_free(comm);
  window = nullptr;
}

Window& RmaEngine::checked(Window* window) {
  if (window == nullptr || !is_live(window))
    throw Error(ErrorClass::MPI_ERR_WIN, "MPI_Win", "invalid window");
  return *window;
}

}  // namespace twinfab::mpi::rma
