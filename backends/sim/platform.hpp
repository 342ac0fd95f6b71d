// The simulated platform: network, HCA and host parameters, loaded from TOML.
//
// Presets live in scenarios/platforms/<name>.toml; docs/platforms.md says where every
// number comes from. All times are in seconds, sizes in bytes, bandwidths in bytes per
// second (the TOML files use unit-suffixed strings, e.g. "10Gbps", "1.2us", "2KiB";
// see docs/platforms.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace twinfab::sim {

enum class Topology : uint8_t { SingleSwitch, FatTree };

/// SimGrid fat-tree parameters (s4u::FatTreeParams): levels, down/up link counts and
/// link multiplicity per level.
struct FatTreeShape {
  unsigned levels = 2;
  std::vector<unsigned> down;   ///< children per switch at each level
  std::vector<unsigned> up;     ///< parents per node at each level
  std::vector<unsigned> count;  ///< parallel links between a node and each parent
};

struct HcaParams {
  double post_overhead = 0;     ///< CPU time to build a WQE and ring the doorbell
  double wqe_processing = 0;    ///< HCA time per work request (message rate limit)
  /// HCA time per work request that overlaps the next one's (a pipelined engine, as a
  /// TCP/iWARP offload's stages): part of an isolated message's latency, like
  /// wqe_processing, but not of its message rate. 0: the whole per-message time is
  /// wqe_processing, which the HCA spends on one work request at a time.
  double pipeline_latency = 0;
  /// The least time between two work requests the HCA starts (LogGP's g), when longer
  /// than wqe_processing: a message rate below what the latency implies (a software
  /// device sharing its host's CPUs with the processes, as rxe in the micro-VM). Not
  /// part of an isolated message's latency. 0: the rate is 1 / wqe_processing.
  double message_gap = 0;
  /// The interval at which the HCA starts work requests: max(wqe_processing, message_gap).
  double wqe_interval() const noexcept { return wqe_processing > message_gap ? wqe_processing : message_gap; }
  double pcie_latency = 0;      ///< one PCIe crossing (doorbell, DMA read, DMA write)
  double pcie_bandwidth = 0;    ///< host <-> HCA DMA bandwidth, shared by the host's ranks
  /// Whether the bus carries pcie_bandwidth each way at once (PCI Express) or shared
  /// by both directions (PCI-X). Full duplex is modelled on single-switch platforms; a
  /// multi-level fat tree shares the bus both ways (docs/model.md, Approximations).
  bool pcie_full_duplex = true;
  double atomic_latency = 0;    ///< target HCA's atomic unit, per CAS/FAA
  /// The responder's time to start an RDMA read's response, beyond what a write costs
  /// it: fetching the data from host memory (a non-posted bus read on hardware; the
  /// responder's kernel task on a software device). 0: a read is a round trip.
  double read_response_latency = 0;
  double poll_overhead = 0;     ///< CPU time of one CQ poll that finds a completion
  /// From a completion to the thread blocked on its completion channel running again
  /// (Runtime::wait_for_event): the HCA's interrupt, the kernel's handler and the
  /// scheduler's wake-up.
  double event_latency = 0;
  uint32_t header_bytes = 0;    ///< wire header per packet (LRH/BTH/... or Eth/IP/UDP/BTH)
  uint32_t icm_cache_entries = 0;  ///< QP contexts cached on the HCA; 0 = no cache model
  double icm_miss_penalty = 0;     ///< PCIe fetch of a QP context on a miss
  // RC reliability of the QPs created on this device, where their QpConfig leaves a
  // field unset (fabric::RcReliability has the encodings).
  uint8_t ack_timeout = 14;    ///< 4.096 us * 2^ack_timeout
  uint8_t retry_count = 7;
  uint8_t rnr_retry = 7;       ///< 7 = infinite
  uint8_t min_rnr_timer = 12;  ///< verbs encoding (12 = 0.64 ms)
};

struct DeviceFeatures {
  bool atomics = true;
  bool write_with_imm = true;
  bool send_with_imm = true;
  bool ud = true;
  bool uc = true;
  bool srq = true;
  bool in_order_placement = true;
  bool requires_connection_manager = false;
  bool active_side_sends_first = false;
  uint32_t max_inline = 256;
  uint32_t max_rd_atomic = 16;
};

struct RegistrationCost {
  double base = 0;      ///< per ibv_reg_mr call (kernel entry, HCA table update)
  double per_page = 0;  ///< pinning + translation entry per page
  uint32_t page_size = 4096;
};

struct LossParams {
  double probability = 0;  ///< per packet, on every link
  uint64_t seed = 1;
  /// Per-host overrides: packets received by this host are lost with this probability.
  std::vector<std::pair<unsigned, double>> per_host;
};

/// Modelled (not simulator) memory per QP by transport, seed 004's categories.
struct MemoryModel {
  uint64_t rc_qp_bytes = 0;   ///< seed 004: ~68 KB per RC connection (MVAPICH 0.9.8)
  uint64_t uc_qp_bytes = 0;
  uint64_t ud_qp_bytes = 0;
  uint64_t qp_context_bytes = 0;  ///< the HCA-side QP context (ICM) per QP
};

struct Platform {
  std::string name;
  std::string source;  ///< the file it came from (for error messages)
  /// The "key=value" overrides applied on top of `source`, in order (load_platform).
  std::vector<std::string> overrides;
  std::string description;

  unsigned hosts = 2;
  unsigned ranks_per_host = 1;
  Topology topology = Topology::SingleSwitch;
  FatTreeShape fat_tree;

  double link_bandwidth = 0;  ///< bytes/s, each host <-> switch link
  double link_latency = 0;    ///< seconds, cable + PHY per link
  double switch_latency = 0;  ///< seconds per switch crossed
  uint32_t mtu = 2048;

  HcaParams hca;
  DeviceFeatures features;
  RegistrationCost registration;
  double memcpy_bandwidth = 0;  ///< bytes/s, for copies the library charges as CPU time
  /// CPU time of one copy into or out of shared memory beyond its bytes (the queue's
  /// bookkeeping and the cache lines that move between cores): a shared-memory message
  /// costs it once at the sender and once at the receiver (fabric/shared_memory.hpp).
  double shm_message_cost = 0.2e-6;
  /// CPU time of the MPI library's own work per packet it sends / receives (the call,
  /// the request, header and protocol; completion processing, matching), charged to the
  /// rank as the library's copies are (docs/model.md, "Host software"). 0: not modelled.
  double mpi_send_overhead = 0;
  double mpi_receive_overhead = 0;
  /// CPU time more per packet taken from a receive queue than from an RDMA fast-path
  /// ring (the CQ poll, the re-post, an SRQ's bookkeeping); fitted where a seed gives
  /// both paths' latency. 0: the two cost the same.
  double mpi_receive_queue_overhead = 0;
  /// Cores per host, shared by the host's ranks and agents (docs/model.md, "Agents and
  /// CPU time"); 0 = ranks_per_host, a core per rank.
  unsigned cores = 0;
  /// The cores a host has: `cores`, or ranks_per_host when it is 0.
  unsigned cores_per_host() const noexcept { return cores != 0 ? cores : ranks_per_host; }
  LossParams loss;
  MemoryModel memory;
};

/// Loads a platform from a preset name (scenarios/platforms/<name>.toml, searched in
/// TWINFAB_PLATFORM_PATH, then the source tree's and the install's scenarios/platforms)
/// or from a path to a TOML file. Throws fabric::Error(InvalidArgument / NotFound) with
/// a message naming the file, the key and the allowed values.
Platform load_platform(const std::string& name_or_path);
/// As above, with `overrides` applied to the file's TOML before it is validated. Each
/// is "dotted.key=value" (as `twinfab sim --set` takes it): "hca.icm_cache_entries=64",
/// "network.link_bandwidth=20Gbps", "loss.probability=0.01", "features.atomics=false".
/// The value is read as a TOML value, or as a string when it is not one (so units need
/// no quotes); missing tables are created; a later override of a key wins. An override
/// goes through the file's checks (unknown key with "did you mean", type, range), and
/// its errors name it: "<file> (with override hca.icm_cache_entries=abc): ...". A
/// malformed override (no '=', an empty key or key part, a key through a value that is
/// not a table, as "name.x=1") throws fabric::Error(InvalidArgument) naming it.
Platform load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides);
/// Parses TOML text; `source` names it in errors.
Platform parse_platform(const std::string& toml_text, const std::string& source);
/// Parses TOML text with `overrides` applied, as load_platform does.
Platform parse_platform(const std::string& toml_text, const std::string& source,
                        const std::vector<std::string>& overrides);
/// Names of the presets found on the search path, sorted.
std::vector<std::string> list_presets();
/// The directories searched for presets, in order.
std::vector<std::filesystem::path> preset_search_path();

}  // namespace twinfab::sim
