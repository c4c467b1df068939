"""``humaneval power --scale-heterogeneity``: the standard and the scale CLMM on simulated studies whose
annotators use the scale differently (humaneval.simulate.scale), as the API computes them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
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


def test_a_judge_with_a_compressed_scale_gets_its_own_scale_parameter():
    """Humans and a judge in one CLMM, the judge one more rater (its own intercept) whose latent spread
    is 3 times the humans' (its ratings follow the systems' difference at a third of the strength). The
    standard CLMM reads that as a smaller difference; with the scale effect ``~ rater_kind`` the judge's
    spread is a parameter (ζ ≈ log 3) and the contrast is the humans' own."""
    from scipy import special

    from humaneval.clmm.fit import fit_spec
    from humaneval.clmm.formula import clmm_spec

    rng = np.random.default_rng(3)
    thresholds, effect, n_docs = np.array([-2.0, -0.7, 0.7, 2.0]), 1.0, 40
    document = rng.normal(0, 0.5, n_docs)
    rows = []

    def rate(who: str, spread: float, shift: float, docs) -> None:
        for d in docs:
            for k in (0, 1):
                latent = effect * k + shift + document[d] + spread * special.logit(rng.uniform())
                kind = "judge" if who == "judge" else "human"
                rows.append((who, f"d{d:02d}", f"s{k}", 1 + np.searchsorted(thresholds, latent), kind))

    for a in range(12):
        rate(f"h{a:02d}", 1.0, rng.normal(0, 0.6), [(a * 5 + j) % n_docs for j in range(10)])
    rate("judge", 3.0, 0.0, range(n_docs))
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "score", "rater_kind"])
    formula = "score ~ system + (1 | annotator) + (1 | document)"
    humans = fit_spec(clmm_spec(formula, table[table["rater_kind"] == "human"]))
    pooled = fit_spec(clmm_spec(formula, table))
    scaled = fit_spec(clmm_spec(formula, table, scale="~ rater_kind"))
    zeta, se = float(scaled.scale.zeta[0]), float(scaled.scale.se[0])
    assert scaled.scale.names == ("rater_kindjudge",)
    assert abs(zeta - np.log(3.0)) <= 1.96 * se and zeta - 1.96 * se > 0  # its own, wider spread
    assert abs(scaled.beta[0] - humans.beta[0]) < 0.1  # the comparison is the humans'
    assert humans.beta[0] - pooled.beta[0] > 0.2  # ignoring the judge's scale biases it towards 0
