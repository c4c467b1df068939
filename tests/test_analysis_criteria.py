"""Analysis across criteria (issue 18): per-criterion results, Holm across criteria × pairs, summary table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import analyze
from humaneval.analysis.criteria import analyze_criteria
from humaneval.cli import main
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.design import DesignSpec, generate_design
from humaneval.errors import OptionError


@pytest.fixture(scope="module")
def two_criteria() -> pd.DataFrame:
    """Coherence with twice the built-in model's effects and fluency with them, on one small design."""
    model = default_model()
    design = generate_design(
        DesignSpec(documents=30, systems=list(model.system_names), seed=4, documents_per_block=5)
    )
    parts = []
    for criterion, factor, seed in (("coherence", 2.0, 1), ("fluency", 1.0, 2)):
        sampled = sample_ratings(model.with_effects(factor), design.judgements(), seed=seed).data
        parts.append(sampled[["annotator", "document", "system", "score"]].assign(criterion=criterion))
    return pd.concat(parts, ignore_index=True)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment written out: sorted p times (m − i), running maximum, capped at 1."""
    order = np.argsort(p)
    m = len(p)
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out


def test_holm_across_criteria_and_pairs(two_criteria):
    plain = analyze_criteria(two_criteria, engine="native")
    joint = analyze_criteria(two_criteria, engine="native", adjust_across_criteria="holm")
    assert plain.criteria == joint.criteria == ["coherence", "fluency"]
    pooled = np.concatenate([a.contrasts["p_unadj"].to_numpy() for a in plain.analyses])
    assert len(pooled) == 20  # 2 criteria × 10 pairs
    got = np.concatenate([a.contrasts["p_adj"].to_numpy() for a in joint.analyses])
    np.testing.assert_allclose(got, holm(pooled), rtol=1e-12)
    assert (got < 0.05).sum() >= 3 and (got > pooled).any()  # some pairs differ, adjustment bites
    # per criterion the results are those of analyze(), before the joint adjustment
    alone = analyze(two_criteria, criterion="fluency", engine="native")
    np.testing.assert_allclose(plain.analyses[1].contrasts["p_adj"], alone.contrasts["p_adj"])
    for analysis in joint.analyses:
        c = analysis.contrasts
        assert (c["adjust"] == "holm across criteria").all() and c["ci_low"].isna().all()
        assert (c["better"].notna() == (c["p_adj"] < 0.05)).all()
    table = joint.summary_table()
    assert list(table.columns) == ["coherence", "fluency"] and len(table) == 5
    first = joint.analyses[0].systems
    assert table.index.tolist() == first["system"].tolist()
    assert table.loc[first["system"].iloc[0], "coherence"] == first["label"].iloc[0]
    assert "adjusted across 2 criteria × pairs (holm)" in joint.summary()


def test_unknown_method_is_refused(two_criteria):
    with pytest.raises(OptionError, match="adjust_across_criteria 'tukey' is unknown"):
        analyze_criteria(two_criteria, adjust_across_criteria="tukey")


def test_cli_option(two_criteria, tmp_path):
    path = tmp_path / "r.csv"
    two_criteria.to_csv(path, index=False)
    args = ["analyze", str(path), "--engine", "native", "--json"]
    out = CliRunner().invoke(main, [*args, "--adjust-across-criteria", "holm"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["adjust_across_criteria"] == "holm"
    p = [c["p_adj"] for part in payload["criteria"] for c in part["contrasts"]]
    plain = json.loads(CliRunner().invoke(main, args).stdout)
    raw = np.array([c["p_unadj"] for part in plain["criteria"] for c in part["contrasts"]])
    np.testing.assert_allclose(p, holm(raw), rtol=1e-9)
