"""The stubs and py.typed: a typed program using the package passes mypy --strict."""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def test_usage_type_checks_under_mypy_strict(tmp_path):
    usage = HERE / "typed" / "usage.py"
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path), str(usage)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # The program also runs.
    r = subprocess.run([sys.executable, str(usage)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_typed_marker_and_stubs_are_installed():
    import xiangqi

    root = pathlib.Path(xiangqi.__file__).parent
    assert (root / "py.typed").is_file() and (root / "_xiangqi.pyi").is_file()
