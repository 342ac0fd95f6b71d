"""twinfab._core and the platform objects: round trips and the C++ loader's errors."""
import re
import subprocess

import pytest

import twinfab
from twinfab import _core, _paths


def test_version_and_revision():
    assert re.fullmatch(r"\d+\.\d+\.\d+", twinfab.version)
    assert twinfab.revision and twinfab.revision == _core.revision


def test_presets_listed_and_loaded():
    names = twinfab.presets()
    assert {"connectx-ddr", "infinihost-sdr", "fat-tree-4096"} <= set(names)
    for name in names:
        p = twinfab.Platform.load(name)
        d = p.to_dict()
        assert d["name"] == p.name == name
        assert d["topology"]["hosts"] == p.hosts >= 2


def test_values_in_base_units():
    d = twinfab.Platform.load("connectx-ddr").to_dict()
    assert d["network"]["link_bandwidth"] == pytest.approx(16e9 / 8)   # "16Gbps"
    assert d["hca"]["post_overhead"] == pytest.approx(0.2e-6)          # "0.2us"
    assert d["hca"]["icm_cache_entries"] == 128
    assert d["features"]["atomics"] is True


def test_overrides_applied_with_types_and_units():
    p = twinfab.Platform.load("connectx-ddr", {"hca.icm_cache_entries": 64, "network.link_bandwidth": "20Gbps",
                                              "features.atomics": False, "loss.probability": 0.01,
                                              "topology.hosts": 9})
    d = p.to_dict()
    assert d["hca"]["icm_cache_entries"] == 64
    assert d["network"]["link_bandwidth"] == pytest.approx(20e9 / 8)
    assert d["features"]["atomics"] is False
    assert d["loss"]["probability"] == 0.01
    assert p.hosts == 9


def test_parse_from_text():
    text = open(twinfab.Platform.load("ideal").source).read()
    p = twinfab.Platform.parse(text, "mine.toml", {"topology.hosts": 3})
    assert p.hosts == 3 and p.source == "mine.toml"


def cli_error(*sim_args):
    """The CLI's message for the same bad input (`twinfab sim ... --set`)."""
    p = subprocess.run([_paths.TWINFAB, "sim", "-n", "2", *sim_args, "--", "/bin/true"], capture_output=True,
                       text=True)
    assert p.returncode != 0
    return p.stderr.strip().removeprefix("twinfab: error: ")


@pytest.mark.parametrize("key,value,fragment", [
    ("hca.icm_cache_entrys", 64, "did you mean"),                 # unknown key, with a suggestion
    ("hca.icm_cache_entries", "many", "hca.icm_cache_entries"),   # wrong type
    ("network.mtu", 100, "network.mtu"),                          # out of range
    ("loss.probability", 1.5, "loss.probability"),               # out of range
])
def test_bad_override_is_the_loaders_error(key, value, fragment):
    with pytest.raises(ValueError) as e:
        twinfab.Platform.load("connectx-ddr", {key: value})
    message = str(e.value)
    assert fragment in message and key.split(".")[-1] in message
    # the same words as the C++ CLI, which uses the same loader
    assert message == cli_error("--platform", "connectx-ddr", "--set", f"{key}={value}")


def test_unknown_preset():
    with pytest.raises(FileNotFoundError, match="unknown platform preset"):
        twinfab.Platform.load("connectx-dddr")


def test_override_value_type_checked():
    with pytest.raises(TypeError, match="hca.icm_cache_entries"):
        twinfab.Platform.load("connectx-ddr", {"hca.icm_cache_entries": [1, 2]})


def test_mpi_parameters():
    params = {p["name"]: p for p in twinfab.mpi_parameters()}
    assert params["TWINFAB_RMA"]["kind"] == "choice" and "rdma" in params["TWINFAB_RMA"]["choices"]
    assert params["TWINFAB_EAGER_THRESHOLD"]["kind"].startswith("uint")
    twinfab.check_mpi_parameters({"TWINFAB_RMA": "sendrecv", "TWINFAB_EAGER_THRESHOLD": "4096"})
    with pytest.raises(ValueError, match="TWINFAB_RMA.*not one of"):
        twinfab.check_mpi_parameters({"TWINFAB_RMA": "fast"})
    with pytest.raises(ValueError, match="TWINFAB_EAGER_THRESHOLD"):
        twinfab.check_mpi_parameters({"TWINFAB_EAGER_THRESHOLD": "-1"})
    with pytest.raises(ValueError, match="TWINFAB_NOPE.*not a twinfab MPI parameter"):
        twinfab.check_mpi_parameters({"TWINFAB_NOPE": "1"})


def test_one_simulation_per_process(pingpong_program):
    code = ("import twinfab._core as c\n"
            f"c.run_program([{pingpong_program!r}, '2', '8'], 2, 'ideal')\n"
            "try:\n"
            f"    c.run_program([{pingpong_program!r}, '2', '8'], 2, 'ideal')\n"
            "except RuntimeError as e:\n"
            "    print('refused:', e)\n")
    p = subprocess.run([_paths.PYTHON, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "refused: this process already ran a simulation" in p.stdout


def test_every_twinfab_variable_is_known():
    """Each TWINFAB_* variable the C++ code reads is an MPI parameter or one the
    package knows is not (runner.NOT_MPI_PARAMETERS): else a run's env would refuse it."""
    import os
    from twinfab.runner import NOT_MPI_PARAMETERS
    root = _core.source_dir
    names = set()
    for top in ("fabric", "backends", "mpi", "launch", "tools"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".cpp", ".hpp")):
                    names |= set(re.findall(r'getenv\("(TWINFAB_[A-Z_]+)"\)', open(os.path.join(d, f)).read()))
    mpi = {p["name"] for p in twinfab.mpi_parameters()}
    assert names and not names - mpi - NOT_MPI_PARAMETERS, names - mpi - NOT_MPI_PARAMETERS
