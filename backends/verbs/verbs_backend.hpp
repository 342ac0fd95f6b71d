// twinfab verbs backend: the fabric contract over real RDMA devices (rdma-core).
//
// InfiniBand and RoCE devices connect QPs by exchanging address blobs and moving the
// QP through INIT/RTR/RTS with ibv_modify_qp. iWARP devices (siw, and every iWARP
// adapter) can only connect through rdma_cm: their connect() drives a non-blocking
// rdma_cm handshake and returns InProgress until it is done.
//
// Everything here is the public face of backends/verbs; the objects behind
// fabric::Device are internal (verbs_*.hpp) and only reached through the contract.
//
// Thread rules (the same as libibverbs): a Device and the objects it made may be used
// from several threads, but one QP, CQ or SRQ at a time by one thread, except that
// Runtime::wait may look at a CQ while another thread polls it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fabric/address.hpp"
#include "fabric/capabilities.hpp"
#include "fabric/device.hpp"
#include "fabric/runtime.hpp"

namespace twinfab::verbs {

/// The backend tag inside every address blob this backend makes.
inline constexpr const char* kBackendName = "verbs";

/// How to choose and open a device. Every field has an automatic default.
struct OpenOptions {
  /// Device name, e.g. "rxe0". Empty: $TWINFAB_DEVICE, else the first device that
  /// has an ACTIVE port.
  std::string device_name;
  /// Port number (1-based). 0: the first ACTIVE port of the device.
  uint8_t port = 0;
  /// Source GID index for RoCE/IB. -1: $TWINFAB_GID_INDEX, else the RoCE v2 GID
  /// with an IPv4-mapped address (RoCE), or 0 (InfiniBand). Ignored on iWARP.
  int gid_index = -1;
  /// iWARP only: the local IPv4 address rdma_cm binds to, dotted quad. Empty:
  /// $TWINFAB_IWARP_ADDR, else the first IPv4 address of this host that rdma_cm maps
  /// to the device.
  std::string ipv4_address;
  /// iWARP: decides the roles of every connection between QPs of two devices: the QP
  /// whose device has the higher rank is the active side (it connects, and it must
  /// send first), the lower one listens, as in seed 003 where the lower MPI rank
  /// listens. Pass the process's rank. Equal ranks (two QPs of one process) fall back
  /// to comparing (IPv4 address, rdma_cm port). Ignored on IB/RoCE.
  uint32_t connection_rank = 0;
  /// Whether the device's runtime yields the CPU as soon as a wait finds nothing,
  /// instead of spinning for 200 us first (Open MPI's mpi_yield_when_idle; for hosts
  /// that run more of the job's processes than they have CPUs). Unset:
  /// $TWINFAB_YIELD_WHEN_IDLE (1, 0 or auto), else auto: yield when local_processes
  /// exceeds the host's online CPUs.
  std::optional<bool> yield_when_idle;
  /// The job's processes on this host (PMIx's local peers), for yield_when_idle's
  /// auto; 0: unknown (then waits spin first).
  uint32_t local_processes = 0;
  /// Whether a wait for completions that has lasted 1 ms sleeps in the kernel until a
  /// completion comes (the CQs' completion channels; MVAPICH2's MV2_USE_BLOCKING)
  /// instead of napping between polls. Unset: $TWINFAB_BLOCKING_WAIT (1 or 0), else
  /// off (idle_policy.hpp says why).
  std::optional<bool> blocking_wait;
};

/// One port of one device, as discovery sees it (no device is kept open).
struct DeviceInfo {
  std::string name;        ///< e.g. "rxe0"
  uint8_t port = 1;        ///< 1-based
  std::string port_state;  ///< ibv_port_state_str(): "PORT_ACTIVE", "PORT_DOWN", ...
  bool active = false;     ///< port_state is ACTIVE: open_device can use it
  std::string transport;   ///< "InfiniBand" or "iWARP" (ibv_device::transport_type)
  std::string link_layer;  ///< "InfiniBand" or "Ethernet"
  int default_gid_index = -1;  ///< what open_device would pick; -1 if none fits
  std::string default_gid;     ///< that GID as an IPv6 address, e.g. "::ffff:10.77.0.1"; empty if none
  /// Capabilities as open_device would report them; backend = "verbs".
  fabric::DeviceCapabilities capabilities;
};

/// Every port of every RDMA device of this host; empty when there is none (also when
/// the kernel has no RDMA support at all). Never throws for a missing device; a
/// device that cannot be queried is listed with port_state = the error.
std::vector<DeviceInfo> list_devices();

/// Opens a device (an ibv_context plus a protection domain) with its own HostRuntime.
/// Throws fabric::Error(NotFound) when no device fits, with a message that lists what
/// was found (or says that the kernel has no RDMA) and how to get a device: create a
/// software one (`rdma link add rxe0 type rxe netdev <if>`, `... type siw ...`), run
/// inside the micro-VM (`ci/vm/run --device rxe -- <cmd>`), or use `--backend sim`.
/// Opening the same device twice gives two independent contexts (rdma-core's tests
/// do the same to have a client and a server in one process).
std::unique_ptr<fabric::Device> open_device(const OpenOptions& options = {});

/// For devices whose capabilities say active_side_sends_first (iWARP): whether the
/// QP that published `local` is the active side (the one that must send first) of
/// its connection to the QP that published `remote`. Both sides compute the same
/// answer from the two blobs: the blob that compares greater byte-wise is active,
/// which for iWARP blobs means the greater (connection rank, IPv4 address, port).
bool is_active_side(const fabric::Address& local, const fabric::Address& remote);

/// The runtime for hardware: a steady clock, OS threads, and a wait() that busy-polls
/// the given verbs CQs (spin, then yield) without consuming their completions.
std::unique_ptr<fabric::Runtime> make_host_runtime();

}  // namespace twinfab::verbs
