"""Shared settings of the Python package's tests (run with pytest from anywhere)."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def shared_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("XIANGQI_SHARED", REPO / ".." / "shared")).resolve()


@pytest.fixture(scope="session")
def records_dir() -> pathlib.Path:
    d = shared_dir() / "data" / "records"
    if not d.is_dir():
        pytest.fail(f"the record set is not at {d} (set XIANGQI_SHARED)")
    return d


@pytest.fixture(scope="session")
def vectors_file() -> pathlib.Path:
    return REPO / "tests" / "oracle" / "vectors" / "fixed-seed.txt"
