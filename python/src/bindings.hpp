// twinfab._core: the pybind11 extension behind the `twinfab` Python package.
//
// One file per area, each adding its functions to the module (STYLE.md):
//   init_fabric.cpp  version, revision, where the build and its tools are
//   init_sim.cpp     platforms (presets, TOML, overrides), simulated runs of MPI
//                    programs and perf tests, counters
//   init_mpi.cpp     the MPI library's parameters (MPI_T control variables)
//
// Simulations run with the GIL released. SimGrid keeps one engine per process, so a
// process runs at most one simulation: the package starts a worker process per point
// (python/twinfab/_point.py); a second run in one process raises RuntimeError.
#pragma once

#include <pybind11/pybind11.h>

namespace twinfab::python {

void init_fabric(pybind11::module_& m);
void init_sim(pybind11::module_& m);
void init_mpi(pybind11::module_& m);

}  // namespace twinfab::python
