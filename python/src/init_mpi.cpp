// twinfab._core: the MPI library's parameters (the TWINFAB_* environment variables,
// which MPI_T lists as control variables), for sweeps that vary them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>

#include "mpi/core/config.hpp"
#include "mpi/core/config_variables.hpp"
#include "mpi/core/error.hpp"
#include "python/src/bindings.hpp"

namespace py = pybind11;

namespace twinfab::python {

namespace {

const char* kind_name(mpi::ConfigVariableKind kind) {
  switch (kind) {
    case mpi::ConfigVariableKind::Unsigned32: return "uint32";
    case mpi::ConfigVariableKind::Unsigned64: return "uint64";
    case mpi::ConfigVariableKind::Choice: return "choice";
  }
  return "?";
}

const char* group_name(mpi::ConfigVariableGroup group) {
  switch (group) {
    case mpi::ConfigVariableGroup::Protocols: return "protocols";
    case mpi::ConfigVariableGroup::Connections: return "connections";
    case mpi::ConfigVariableGroup::Regcache: return "regcache";
    case mpi::ConfigVariableGroup::OneSided: return "rma";
    case mpi::ConfigVariableGroup::Transport: return "transport";
    case mpi::ConfigVariableGroup::Collectives: return "collectives";
    case mpi::ConfigVariableGroup::Progress: return "progress";
  }
  return "?";
}

/// One variable as a dict; `default` is the value with no environment set (a word
/// for a choice).
py::dict describe(const mpi::ConfigVariable& v) {
  const mpi::Config defaults;
  py::dict d;
  d["name"] = std::string(v.name);
  d["description"] = std::string(v.description);
  d["kind"] = kind_name(v.kind);
  d["group"] = group_name(v.group);
  py::list choices;
  for (const auto& c : v.choices) choices.append(std::string(c));
  d["choices"] = choices;
  const std::uint64_t value = v.get(defaults);
  if (v.kind == mpi::ConfigVariableKind::Choice && value < v.choices.size())
    d["default"] = std::string(v.choices[value]);
  else
    d["default"] = value;
  return d;
}

}  // namespace

void init_mpi(py::module_& m) {
  m.def(
      "mpi_parameters",
      [] {
        py::list out;
        for (const auto& v : mpi::config_variables()) out.append(describe(v));
        return out;
      },
      "The MPI library's parameters (TWINFAB_* environment variables, MPI_T control variables): "
      "a list of dicts with name, description, kind (uint32, uint64, choice), group, choices, default.");
  m.def(
      "check_mpi_parameters",
      [](const std::map<std::string, std::string>& values) {
        try {
          (void)mpi::apply_variables(mpi::Config{}, values);
        } catch (const mpi::Error& e) {
          throw py::value_error(e.what());
        }
      },
      py::arg("values"),
      "Checks TWINFAB_* parameters (name -> text as the environment would hold it) exactly as "
      "MPI_Init would: raises ValueError naming the parameter and what it allows.");
}

}  // namespace twinfab::python
