// Internal: how a waiting thread uses its CPU (HostRuntime): whether it spins before it
// yields, or yields at once; whether a wait that lasts sleeps in the kernel until a
// completion comes, or naps and polls.
//
// Spinning catches a fast reply without a trip through the scheduler, which is what a
// process that has a CPU of its own wants. When a host runs more of the job's
// processes than it has CPUs, a spinning waiter holds a CPU that the process it waits
// for needs: Open MPI then sets mpi_yield_when_idle, and so does twinfab
// (TWINFAB_YIELD_WHEN_IDLE, docs/hardware.md).
#pragma once

#include <cstdint>
#include <optional>

namespace twinfab::verbs {

/// Whether waits yield the CPU at once. `requested` wins when set; else `env_value`
/// (the text of $TWINFAB_YIELD_WHEN_IDLE, null when unset): "1"/"yes"/"true"/"on",
/// "0"/"no"/"false"/"off", or "auto"/"" (the default): yield when `local_processes`
/// (the job's processes on this host; 0 when unknown) exceeds `online_cpus`. Throws
/// fabric::Error(InvalidArgument) naming the variable for any other text.
bool decide_yield_when_idle(std::optional<bool> requested, const char* env_value, uint32_t local_processes,
                            long online_cpus);

/// Whether a wait for completions that has lasted past its spin and yield phases
/// (1 ms) sleeps on the CQs' completion channels until one comes (MVAPICH2's
/// MV2_USE_BLOCKING, Intel MPI's I_MPI_WAIT_MODE) instead of napping between polls.
/// Off by default, as theirs: it takes the CPU of a long wait from ~6 % to ~1 %, but
/// a wake-up then goes through an interrupt, no sooner in the micro-VM
/// (docs/hardware.md has the figures).
/// `requested` wins when set; else `env_value` (the text of $TWINFAB_BLOCKING_WAIT,
/// null when unset): "1"/"yes"/"true"/"on" or "0"/"no"/"false"/"off"/"" (the default).
/// Throws fabric::Error(InvalidArgument) naming the variable for any other text.
bool decide_blocking_wait(std::optional<bool> requested, const char* env_value);

/// This host's online CPUs (sysconf(_SC_NPROCESSORS_ONLN)); at least 1. The whole host's,
/// not this process's affinity mask: a launcher that binds each process to a core of
/// its own does not oversubscribe the host.
long online_cpus() noexcept;

}  // namespace twinfab::verbs
