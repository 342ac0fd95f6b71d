"""twinfab.run(backend="verbs") on a real RDMA device (label `verbs`: run inside the
micro-VM on rxe and siw): the same program and the same call as in the simulator,
launched by mpirun (PMIx)."""
import os
import shutil

import pytest

import twinfab

RING = os.environ.get("TWINFAB_TEST_RING", "")


@pytest.fixture(scope="module")
def ring():
    devices = os.listdir("/sys/class/infiniband") if os.path.isdir("/sys/class/infiniband") else []
    if not devices:
        pytest.skip("no RDMA device on this host (/sys/class/infiniband is empty): run inside the micro-VM "
                    "(ci/vm/run --device rxe|siw -- ctest -L verbs)")
    if not os.access(RING, os.X_OK):
        pytest.fail(f"TWINFAB_TEST_RING={RING!r} is not the built tests/mpi/c/ring")
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun (openmpi-bin) is not installed: run ci/install-deps.sh")
    return RING


def test_same_program_on_the_device_and_in_the_simulator(ring):
    hw = twinfab.run(ring, 2, args=[5], backend="verbs", env={"TWINFAB_EAGER_THRESHOLD": "4096"}, timeout=300)
    assert hw.ok, f"{hw.error}\n{hw.stdout}\n{hw.stderr}"
    assert "ring: 2 ranks x 5 iterations ok" in hw.stdout
    assert hw.simulated_time is None and hw.counters == {} and hw.wall_time > 0
    assert hw.cli.startswith("TWINFAB_EAGER_THRESHOLD=4096 mpirun")
    sim = twinfab.run(ring, 2, args=[5], env={"TWINFAB_EAGER_THRESHOLD": "4096"})
    assert sim.ok and "ring: 2 ranks x 5 iterations ok" in sim.stdout


def test_failure_on_the_device_is_a_result(ring):
    r = twinfab.run(ring, 2, args=["-3"], backend="verbs", timeout=300)
    assert not r.ok and r.status != 0 and r.error


def test_simulator_options_refused_for_hardware(ring):
    with pytest.raises(ValueError, match="backend 'sim' only"):
        twinfab.run(ring, 2, backend="verbs", loss=0.01)
