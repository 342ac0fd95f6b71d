"""Where this twinfab's tools and data are: the build tree the package was built in
(when `_core` lives under it), or the installation prefix."""
import os

from . import _core


def _in_build_tree():
    here = os.path.realpath(os.path.dirname(_core.__file__))
    build = os.path.realpath(_core.build_dir)
    return here == build or here.startswith(build + os.sep)


IN_BUILD_TREE = _in_build_tree()

if IN_BUILD_TREE:
    BINDIR = os.path.join(_core.build_dir, "bin")
    TWINFAB = os.path.join(_core.build_dir, "tools", "twinfab", "twinfab")
    SCENARIOS = os.path.join(_core.source_dir, "scenarios")
    WORK = os.path.join(_core.build_dir, "python-work")
else:
    # <prefix>/<install_pythondir>/twinfab/_core*.so: the prefix is what is left.
    _site = os.path.dirname(os.path.dirname(os.path.abspath(_core.__file__)))
    _depth = len([p for p in _core.install_pythondir.split("/") if p])
    PREFIX = os.path.abspath(os.path.join(_site, *([os.pardir] * _depth)))
    BINDIR = os.path.join(PREFIX, _core.install_bindir)
    TWINFAB = os.path.join(BINDIR, "twinfab")
    SCENARIOS = os.path.join(PREFIX, _core.install_datadir, "scenarios")
    WORK = os.path.join(os.path.expanduser("~"), ".cache", "twinfab")

MPICC = os.path.join(BINDIR, "twinfab-mpicc")
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else "python3"


def work_dir(*parts):
    """A directory for built programs and caches (build/python-work in a build tree,
    ~/.cache/twinfab when installed; TWINFAB_WORK overrides), created on demand."""
    path = os.path.join(os.environ.get("TWINFAB_WORK", WORK), *parts)
    os.makedirs(path, exist_ok=True)
    return path
