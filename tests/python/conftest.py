"""Shared fixtures of the Python tests (run by ctest, label `python`, with
PYTHONPATH=<build>/python and TWINFAB_WORK=<a folder of this test's own>)."""
import os

import pytest

import twinfab

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="session")
def exit_status_program():
    return twinfab.build_program(os.path.join(HERE, "programs", "exit_status.c"))


@pytest.fixture(scope="session")
def pingpong_program():
    return twinfab.build_program(os.path.join(REPO, "scenarios", "drop-rate", "src", "pingpong.c"))
