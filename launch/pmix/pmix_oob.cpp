#include "launch/pmix/pmix_oob.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "fabric/error.hpp"

namespace twinfab::launch {
namespace {

// The rank's address blob of fence number `epoch` (see the header).
std::string address_key(unsigned epoch) { return fmt::format("twinfab.address.{}", epoch); }

fabric::Error pmix_error(const char* call, pmix_status_t rc) {
  return fabric::Error(fabric::Status::IoError, fmt::format("{} failed: {} ({})", call, PMIx_Error_string(rc), rc));
}

// A job-level or process-level key the server gave at start-up, or null. PMIX_OPTIONAL:
// look only at what this client already holds, never wait for a value that may never
// come (these keys are not put by peers).
pmix_value_t* get_startup_value(const pmix_proc_t& proc, const char* key) {
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  bool optional = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
  pmix_value_t* value = nullptr;
  const pmix_status_t rc = PMIx_Get(&proc, key, &info, 1, &value);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) return nullptr;
  return value;
}

// The job's processes on this node (PMIX_LOCAL_PEERS, "0,1,2,3"), as a list of ranks;
// empty when the server does not give it.
std::vector<int> read_local_peers(const pmix_proc_t& self) {
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, self.nspace, PMIX_RANK_WILDCARD);
  std::vector<int> peers;
  if (pmix_value_t* value = get_startup_value(job, PMIX_LOCAL_PEERS)) {
    if (value->type == PMIX_STRING && value->data.string != nullptr) {
      const std::string_view text(value->data.string);
      std::size_t at = 0;
      while (at < text.size()) {
        std::size_t end = text.find(',', at);
        if (end == std::string_view::npos) end = text.size();
        int rank = -1;
        const auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, rank);
        if (ec == std::errc() && ptr == text.data() + end && rank >= 0) peers.push_back(rank);
        at = end + 1;
      }
    }
    PMIX_VALUE_RELEASE(value);
  }
  return peers;
}

// Which node the process runs on. The lowest rank among the job's processes on this
// node (`local_peers`) names the node the same way in every process on it, and
// differently on every other node. PMIX_NODEID, the server's own number, is the
// fallback. Open MPI's prterun and Slurm give both.
std::optional<int> read_node(const pmix_proc_t& self, const std::vector<int>& local_peers) {
  if (!local_peers.empty()) return *std::min_element(local_peers.begin(), local_peers.end());
  std::optional<int> node;
  if (pmix_value_t* value = get_startup_value(self, PMIX_NODEID)) {
    if (value->type == PMIX_UINT32 && value->data.uint32 <= 0x7fffffffu) node = static_cast<int>(value->data.uint32);
    PMIX_VALUE_RELEASE(value);
  }
  return node;
}

}  // namespace

bool PmixSession::launched_by_process_manager() noexcept {
  // Every PMIx server (prte, Open MPI's orted, slurmd's PMIx plugin) gives its
  // clients the namespace and a server URI in the environment.
  return std::getenv("PMIX_NAMESPACE") != nullptr || std::getenv("PMIX_SERVER_URI41") != nullptr ||
         std::getenv("PMIX_SERVER_URI4") != nullptr || std::getenv("PMIX_SERVER_URI3") != nullptr ||
         std::getenv("PMIX_SERVER_URI2") != nullptr;
}

PmixSession::PmixSession() {
  pmix_status_t rc = PMIx_Init(&self_, nullptr, 0);
  if (rc != PMIX_SUCCESS)
    throw fabric::Error(fabric::Status::NotFound,
                        fmt::format("PMIx_Init failed: {} ({}). Start the job with a PMIx process manager "
                                    "(`mpirun -n N ./prog`, `srun --mpi=pmix -n N ./prog`), or run it in the "
                                    "simulator with `twinfab sim -n N ./prog`",
                                    PMIx_Error_string(rc), rc));
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, self_.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* value = nullptr;
  rc = PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &value);
  if (rc != PMIX_SUCCESS || value == nullptr) {
    PMIx_Finalize(nullptr, 0);
    throw pmix_error("PMIx_Get(PMIX_JOB_SIZE)", rc);
  }
  size_ = static_cast<int>(value->data.uint32);
  PMIX_VALUE_RELEASE(value);
  local_ranks_ = read_local_peers(self_);
  std::sort(local_ranks_.begin(), local_ranks_.end());
  local_size_ = static_cast<int>(local_ranks_.size());
  node_ = read_node(self_, local_ranks_);
}

PmixSession::~PmixSession() { PMIx_Finalize(nullptr, 0); }

void PmixSession::abort(int code, const std::string& message) noexcept {
  PMIx_Abort(code, message.c_str(), nullptr, 0);
}

void PmixOobExchange::put(std::span<const std::byte> blob) {
  blob_.assign(blob.begin(), blob.end());
  have_blob_ = true;
}

void PmixOobExchange::fence() {
  ++fences_;
  if (have_blob_) publish();
  fence_impl(true);
}

void PmixOobExchange::publish() {
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  // PMIx_Put copies the value.
  value.data.bo.bytes = reinterpret_cast<char*>(blob_.data());
  value.data.bo.size = blob_.size();
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, address_key(fences_).c_str(), &value);
  if (rc != PMIX_SUCCESS) throw pmix_error("PMIx_Put", rc);
  rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) throw pmix_error("PMIx_Commit", rc);
}

void PmixOobExchange::fence_impl(bool collect_data) {
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, session_.self().nspace, PMIX_RANK_WILDCARD);
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect_data, PMIX_BOOL);
  pmix_status_t rc = PMIx_Fence(&job, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) throw pmix_error("PMIx_Fence", rc);
}

void PmixOobExchange::barrier() { fence_impl(false); }

std::vector<std::byte> PmixOobExchange::get(int rank) const {
  if (rank < 0 || rank >= size())
    throw fabric::Error(fabric::Status::InvalidArgument,
                        fmt::format("OobExchange::get: rank {} outside 0..{}", rank, size() - 1));
  pmix_proc_t peer;
  PMIX_LOAD_PROCID(&peer, session_.self().nspace, static_cast<pmix_rank_t>(rank));
  pmix_value_t* value = nullptr;
  pmix_status_t rc = PMIx_Get(&peer, address_key(fences_).c_str(), nullptr, 0, &value);
  if (rc != PMIX_SUCCESS || value == nullptr)
    throw fabric::Error(fabric::Status::NotFound,
                        fmt::format("PMIx_Get of rank {}'s address failed: {} ({}); did it publish one before "
                                    "the last fence?",
                                    rank, PMIx_Error_string(rc), rc));
  if (value->type != PMIX_BYTE_OBJECT) {
    PMIX_VALUE_RELEASE(value);
    throw fabric::Error(fabric::Status::IoError, fmt::format("PMIx_Get of rank {}'s address: not a byte object", rank));
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(value->data.bo.bytes);
  std::vector<std::byte> blob(bytes, bytes + value->data.bo.size);
  PMIX_VALUE_RELEASE(value);
  return blob;
}

}  // namespace twinfab::launch
