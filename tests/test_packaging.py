"""The wheel carries r/ and templates/, found through importlib.resources."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from importlib.resources import files
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_resources_found_through_importlib():
    for folder in ("r", "templates"):
        assert files("humaneval").joinpath(folder).is_dir()
    assert files("humaneval").joinpath("data/coherence_model.json").is_file()


@pytest.mark.slow
def test_wheel_contains_r_and_templates(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = tmp_path.glob("humaneval-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("r", "templates"):
        expected = {
            f"humaneval/{folder}/{p.relative_to(ROOT / folder)}"
            for p in (ROOT / folder).rglob("*")
            if p.is_file()
        }
        assert expected and expected <= names
    assert "humaneval/data/coherence_model.json" in names
