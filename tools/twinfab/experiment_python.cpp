#include "tools/twinfab/experiment_python.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace twinfab::tools {

namespace fs = std::filesystem;

bool is_python_experiment(int argc, char** argv) {
  if (!TWINFAB_WITH_PYTHON) return false;  // (-DTWINFAB_WITH_PYTHON=OFF: the package is not built)
  if (argc < 3 || std::string_view(argv[1]) != "experiment") return false;
  const std::string_view name = argv[2];
  if (name == "seed000-regcache" || name == "--help" || name == "-h") return false;
  return name == "--list" || name.empty() || name[0] != '-';
}

namespace {

/// The package this executable belongs with: the build tree's when it runs from it.
std::string package_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path build = fs::path(TWINFAB_BINARY_DIR);
  if (!ec && self.string().starts_with(build.string() + "/") && fs::is_directory(build / "python" / "twinfab", ec))
    return (build / "python").string();
  return TWINFAB_INSTALL_PYTHONPATH;
}

}  // namespace

int exec_python_experiment(int argc, char** argv) {
  const std::string pythonpath = package_path();
  const char* old = std::getenv("PYTHONPATH");
  const std::string value = old && *old ? pythonpath + ":" + old : pythonpath;
  setenv("PYTHONPATH", value.c_str(), 1);
  std::vector<std::string> words = {TWINFAB_PYTHON, "-m", "twinfab.experiments"};
  for (int i = 2; i < argc; ++i) words.emplace_back(argv[i]);
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  execv(TWINFAB_PYTHON, args.data());
  fmt::print(stderr,
             "twinfab: error: cannot start {} for the Python experiments: {} (install Debian's python3 and the "
             "packages of ci/install-deps.sh, then build the target twinfab_python)\n",
             TWINFAB_PYTHON, std::strerror(errno));
  return 1;
}

}  // namespace twinfab::tools
