"""``humaneval power --scale-heterogeneity``: the standard and the scale CLMM on simulated studies whose
annotators use the scale differently (humaneval.simulate.scale), as the API computes them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import OptionError
from humaneval.simulate.scale import ScaleDesign, scale_design, scale_heterogeneity

SPEC = "annotators=8,documents=8,docs_per_annotator=3,effect=1.5,sd_log_scale=0.6"


def test_the_option_names_the_design():
    design = scale_design(SPEC)
    assert design == ScaleDesign(
        n_annotators=8, n_documents=8, docs_per_annotator=3, effects=(0.0, 1.5), sd_log_scale=0.6
    )
    assert scale_design("default") == ScaleDesign()
    with pytest.raises(OptionError, match="use KEY=VALUE with KEY one of annotators"):
        scale_design("raters=3")
    with pytest.raises(OptionError, match="annotators is a whole number"):
        scale_design("annotators=2.5")
    with pytest.raises(OptionError, match="'x' is not a number"):
        scale_design("effect=x")


def test_power_scale_heterogeneity_presents_what_the_simulation_computes():
    result = CliRunner().invoke(
        main, ["power", "--scale-heterogeneity", SPEC, "--trials", "3", "--seed", "4", "--json"]
    )
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    direct = scale_heterogeneity(scale_design(SPEC), 3, seed=4).rates()
    null = scale_heterogeneity(scale_design(SPEC.replace("effect=1.5", "effect=0")), 3, seed=5).rates()
    models = {m["model"]: m for m in found["models"]}
    assert found["design"]["effects"] == [0.0, 1.5] and found["requested"] == 3
    for name, key in (("standard CLMM", "standard"), ("scale CLMM", "scale")):
        assert models[name]["coverage"] == pytest.approx(direct[f"{key}_coverage"])
        assert models[name]["power"] == pytest.approx(direct[f"{key}_rejection"])
        assert models[name]["type1_error"] == pytest.approx(null[f"{key}_rejection"])
    assert found["scale_sd_coverage"] == pytest.approx(direct["scale_sd_coverage"])
    assert found["replicates"] == direct["replicates"] and np.isfinite(models["scale CLMM"]["coverage"])
    text = CliRunner().invoke(
        main, ["power", "--scale-heterogeneity", "annotators=x"]
    )  # one line, exit code 2
    assert text.exit_code == 2 and "'x' is not a number" in text.output and "Traceback" not in text.output
