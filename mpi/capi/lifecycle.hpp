// twinfab MPI C API: the life of a rank's Context, shared by the World model and the
// Sessions model (MPI-4.0 §11.3).
//
// A rank has one Context (its device, channel, MPI_COMM_WORLD machinery) whoever asks
// for MPI: MPI_Init and every MPI_Session_init use the same one. The first of them
// makes it (acquire_context): it opens the host's resources and builds the Context,
// which is collective over every rank of the job (connection set-up through the
// out-of-band exchange), as MPI_Init always was. The last of MPI_Finalize and the
// MPI_Session_finalize calls releases it (release_context_if_unused): it drains the
// channel and meets every rank, so it is collective over every rank of the job too,
// whichever call each rank releases in (rank 0 may release in MPI_Finalize while rank 1
// does in MPI_Session_finalize). MPI-4.0 allows MPI_Session_finalize to be collective
// over the processes of the session; here it is collective over every process, and only
// in the call that ends the rank's last use of MPI: earlier finalizes are local.
//
// After the release MPI does not start again in the process: RankHost::open() is
// called once per rank (the PMIx host finalizes PMIx in close(), and initializing PMIx
// again in one process is not something twinfab relies on), so acquire_context()
// refuses with MPI_ERR_UNSUPPORTED_OPERATION (MPI_Session_init) and MPI_Init aborts, as
// it does after MPI_Finalize.
#pragma once

#include "mpi/capi/rank_state.hpp"

namespace twinfab::mpi::capi {

/// Makes the rank's Context unless it has one: collective over every rank of the job.
/// Starts measuring the program's computation when the host asks for it (the caller
/// ends its MPI call for it). Throws MPI_ERR_UNSUPPORTED_OPERATION when the Context was
/// released already; aborts the job (no handler can take it) when the host cannot
/// open the rank's resources.
void acquire_context(RankState& state, const char* function);

/// Whether something still uses the rank's Context: the World model (MPI_Init called,
/// MPI_Finalize not yet) or an open session.
bool context_in_use(const RankState& state);

/// Releases the rank's Context once nothing uses it: delivers the buffered sends,
/// completes freed requests, destroys the Context (collective over every rank of the
/// job) and closes the host's resources. Nothing when something still uses it.
void release_context_if_unused(RankState& state);

}  // namespace twinfab::mpi::capi
