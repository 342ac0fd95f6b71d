#include "python/src/bindings.hpp"

#include "fabric/error.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "twinfab's C++ core: platforms, simulated runs, perf tests, counters, MPI parameters. "
      "Use the `twinfab` package, which runs each simulation in its own process.";
  // fabric::Error carries a Status and a message that names the key, value and range:
  // InvalidArgument and NotFound become ValueError / FileNotFoundError with that message.
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const twinfab::fabric::Error& e) {
      switch (e.status()) {
        case twinfab::fabric::Status::InvalidArgument:
          PyErr_SetString(PyExc_ValueError, e.what());
          return;
        case twinfab::fabric::Status::NotFound:
          PyErr_SetString(PyExc_FileNotFoundError, e.what());
          return;
        case twinfab::fabric::Status::Unsupported:
          PyErr_SetString(PyExc_NotImplementedError, e.what());
          return;
        default:
          PyErr_SetString(PyExc_RuntimeError, e.what());
          return;
      }
    }
  });
  twinfab::python::init_fabric(m);
  twinfab::python::init_sim(m);
  twinfab::python::init_mpi(m);
}
