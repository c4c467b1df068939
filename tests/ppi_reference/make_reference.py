"""Reference numbers of ppi-python (``ppi_py.ppi_mean_ci``, ``ppi_mean_pointestimate``) for the tests.

ppi-python is a reference, not a dependency, and its wheel installs a top-level ``tests`` package,
so it lives in a scratch environment and its numbers are stored here:

    python3 -m venv /tmp/ppivenv && /tmp/ppivenv/bin/pip install ppi-python==0.2.3
    /tmp/ppivenv/bin/python tests/ppi_reference/make_reference.py

writes ``reference.json`` (array cases, ``ppi_power`` budgets) and ``study.csv`` + ``study_judge.csv``
(a ratings table with human ratings of 20 % of the summaries: every summary of 20 of the 100
documents, two annotators each, and a judge's scores of all 500 summaries) with the per-system and
per-pair numbers.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import ppi_py
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
from ppi_py.ppi_power_analysis import ppi_power

HERE = Path(__file__).parent
ALPHA = 0.05


def reference(y: np.ndarray, yhat: np.ndarray, yhat_unlabeled: np.ndarray) -> dict[str, float]:
    low, high = ppi_mean_ci(y, yhat, yhat_unlabeled, alpha=ALPHA)
    estimate = ppi_mean_pointestimate(y, yhat, yhat_unlabeled)
    return {"estimate": float(np.ravel(estimate)[0]), "ci_low": float(low[0]), "ci_high": float(high[0])}


def array_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    truth = rng.normal(3, 1, 100)
    cases.append(
        ("good judge", truth[:20], truth[:20] + rng.normal(0, 0.5, 20), truth[20:] + rng.normal(0, 0.5, 80))
    )
    likert = np.clip(np.rint(rng.normal(3.5, 1, 250)), 1, 5)
    metric = 0.4 * likert + rng.normal(0, 0.6, 250)
    cases.append(("likert and a metric", likert[:50], metric[:50], metric[50:]))
    cases.append(("useless judge", likert[:30], rng.normal(0, 1, 30), rng.normal(0, 1, 200)))
    ceiling = np.clip(np.rint(rng.normal(4.7, 0.7, 120)), 1, 5)
    cases.append(
        (
            "ceiling",
            ceiling[:12],
            ceiling[:12] + rng.normal(0, 0.3, 12),
            ceiling[12:] + rng.normal(0, 0.3, 108),
        )
    )
    out = []
    for name, y, f, g in cases:
        out.append(
            {
                "name": name,
                "y": y.tolist(),
                "yhat": f.tolist(),
                "yhat_unlabeled": g.tolist(),
                **reference(y, f, g),
            }
        )
    return out


def study(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    systems = [f"sys{k}" for k in range(5)]
    docs = [f"doc{d:03d}" for d in range(100)]
    latent = (
        3.0
        + np.array([0.0, 0.2, 0.5, 0.6, 1.0])[None, :]
        + rng.normal(0, 0.6, (100, 1))
        + rng.normal(0, 0.7, (100, 5))
    )
    judge = latent + rng.normal(0, 0.6, latent.shape)
    rated = np.sort(rng.choice(100, 20, replace=False))
    rows = []
    for d in rated:
        for a in range(2):
            scores = np.clip(np.rint(latent[d] + rng.normal(0, 0.6, 5)), 1, 5).astype(int)
            rows += [(f"ann{d}_{a}", docs[d], systems[s], int(scores[s])) for s in range(5)]
    human = pd.DataFrame(rows, columns=["annotator", "document", "system", "score"])
    judged = pd.DataFrame(
        {"document": np.repeat(docs, 5), "system": np.tile(systems, 100), "score": judge.ravel().round(6)}
    )
    return human, judged


def study_reference(human: pd.DataFrame, judged: pd.DataFrame) -> dict[str, list[dict]]:
    y = human.groupby(["document", "system"])["score"].mean().unstack()
    f = judged.set_index(["document", "system"])["score"].unstack()
    labelled = f.index.isin(y.index)
    out = {"systems": [], "pairs": []}
    for s in f.columns:
        out["systems"].append(
            {
                "system": s,
                **reference(
                    y.loc[f.index[labelled], s].to_numpy(),
                    f.loc[labelled, s].to_numpy(),
                    f.loc[~labelled, s].to_numpy(),
                ),
            }
        )
    for a, b in combinations(f.columns, 2):
        d_y = (y[a] - y[b]).reindex(f.index[labelled]).to_numpy()
        out["pairs"].append(
            {
                "system_a": a,
                "system_b": b,
                **reference(d_y, (f[a] - f[b])[labelled].to_numpy(), (f[a] - f[b])[~labelled].to_numpy()),
            }
        )
    return out


def power_cases() -> list[dict]:
    """The cheapest (n, N) of ppi_power (Broska, Howes & van Loon 2024) for a target effective n."""
    out = []
    for corr, cost_y, cost_yhat, effective_n in (
        (0.8, 1.0, 0.01, 97),
        (0.6, 2.0, 0.05, 126),
        (0.9, 1.0, 0.1, 200),
    ):
        result = ppi_power(corr, 0.0, cost_y, cost_yhat, effective_n=effective_n)
        out.append(
            {
                "correlation": corr,
                "human_cost": cost_y,
                "judge_cost": cost_yhat,
                "effective_n": effective_n,
                **{k: float(result[k]) for k in ("n", "N", "cost")},
            }
        )
    return out


def main() -> None:
    rng = np.random.default_rng(20231)
    cases = array_cases(rng)
    human, judged = study(rng)
    human.to_csv(HERE / "study.csv", index=False)
    judged.to_csv(HERE / "study_judge.csv", index=False)
    payload = {
        "ppi_python": getattr(ppi_py, "__version__", "0.2.3"),
        "call": "ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05); "
        "ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled)",
        "cases": cases,
        "study": study_reference(human, pd.read_csv(HERE / "study_judge.csv")),
        "power": power_cases(),
    }
    (HERE / "reference.json").write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
