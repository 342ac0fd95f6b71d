// `twinfab experiment NAME ...` for the experiments in scenarios/ (drop-rate, scaling,
// icm-cache, seed000, seed001, ...): they are Python (the `twinfab.experiments`
// module), so the CLI hands the whole command line to
//   python3 -m twinfab.experiments NAME ...
// with this twinfab's package on PYTHONPATH (the build tree's build/python when this
// executable is the build tree's, else the installed site directory). The C++
// experiment seed000-regcache stays in the CLI itself.
#pragma once

namespace twinfab::tools {

/// True when `twinfab experiment ...` (argv) names a Python experiment or asks for
/// the list (--list): everything but seed000-regcache and --help.
bool is_python_experiment(int argc, char** argv);

/// Replaces this process with the Python module (execv); returns only on failure,
/// with the exit status after printing why.
int exec_python_experiment(int argc, char** argv);

}  // namespace twinfab::tools
