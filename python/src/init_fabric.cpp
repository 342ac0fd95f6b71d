// twinfab._core: what this twinfab is and where its parts are.
#include <pybind11/pybind11.h>

#include "python/src/bindings.hpp"
#include "tools/twinfab/revision.hpp"

namespace py = pybind11;

namespace twinfab::python {

void init_fabric(py::module_& m) {
  m.attr("version") = std::string(tools::version());
  // `git describe --always --dirty` of the source tree when this module was built
  // ("unknown" outside a git checkout): sweeps record it in every row and key their
  // cache on it, so results of different code are never mixed.
  m.attr("revision") = std::string(tools::revision());
  // Baked in at build time; the package decides at import which applies (a module
  // under build_dir is the build tree's). Installed, the paths are relative to the
  // prefix, which the package derives from where the module is: the python dir is
  // the module's folder's parent's path below the prefix.
  m.attr("source_dir") = TWINFAB_SOURCE_DIR_STR;
  m.attr("build_dir") = TWINFAB_BINARY_DIR_STR;
  m.attr("install_pythondir") = TWINFAB_INSTALL_PYTHONDIR_STR;
  m.attr("install_bindir") = TWINFAB_INSTALL_BINDIR_STR;
  m.attr("install_datadir") = TWINFAB_INSTALL_DATADIR_STR;
#ifdef TWINFAB_HAVE_VERBS
  m.attr("have_verbs") = true;
#else
  m.attr("have_verbs") = false;
#endif
}

}  // namespace twinfab::python
