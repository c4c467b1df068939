"""Alt-test benchmark: the vectorised test against a straightforward item-by-item loop.

The size of the issue: 6 judges × 1,600 items × 4 criteria. The items are the real CEBaB star ratings
(``alttest/cebab_stars``: 711 reviews, 10 humans, 6 judges) tiled to 1,600 items, with four criteria
that shift the labels cyclically (so each criterion has its own numbers); −RMSE scoring, ε = 0.1.
The loop is the authors' procedure written out per human, item and judge (a scoring call per pair,
scipy's one-sided t-test, statsmodels' Benjamini–Yekutieli). Both sides give the same ω and ρ
(checked); both get one warm-up and the same number of timed calls (CPU seconds).

Usage: ``python benchmarks/bench_judges.py [--repeats 3]`` (needs the reference data).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd
from _common import setting, shared_data, timed
from scipy import stats
from statsmodels.stats.multitest import multipletests

from humaneval.judges.alttest import alt_test
from humaneval.judges.data import LabelView


def study(n_items: int = 1600, n_criteria: int = 4) -> LabelView:
    folder = shared_data("alttest", "cebab_stars")
    humans = json.loads((folder / "human_annotations.json").read_text())
    judges = json.loads((folder / "llm_annotations.json").read_text())
    every = sorted({item for labels in humans.values() for item in labels})
    rows = []
    for kind, source in (("human", humans), ("judge", judges)):
        for annotator, labels in source.items():
            for k in range(n_items):
                item = every[k % len(every)]
                if item in labels:
                    for c in range(n_criteria):
                        label = (labels[item] + c - 1) % 5 + 1
                        rows.append((f"{item}#{k // len(every)}", annotator, label, kind, f"c{c}"))
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label", "rater_kind", "criterion"])
    frame["label"] = frame["label"].astype(float)
    return LabelView(frame, "numeric")  # the analyses' own view: the timing is the test's


def loop(table: LabelView, eps: float) -> dict[tuple[str, str], tuple[float, float]]:
    out = {}
    for criterion in table.criteria:
        part = table.data[table.data["criterion"] == criterion]
        humans: dict[str, dict[str, float]] = {}
        judges: dict[str, dict[str, float]] = {}
        for item, annotator, label, kind in part[["item", "annotator", "label", "rater_kind"]].itertuples(
            index=False
        ):
            (humans if kind == "human" else judges).setdefault(annotator, {})[item] = label
        by_item: dict[str, list[str]] = {}
        for h, labels in humans.items():
            for i in labels:
                by_item.setdefault(i, []).append(h)
        for judge, mine in judges.items():
            p_values, rhos = [], []
            for h, labels in humans.items():
                items = [i for i in labels if len(by_item[i]) >= 2 and i in mine]
                if len(items) < 30:
                    continue
                j_ind, h_ind = [], []
                for i in items:
                    others = np.array([humans[o][i] for o in by_item[i] if o != h])
                    hs = -np.sqrt(np.mean((labels[i] - others) ** 2))
                    js = -np.sqrt(np.mean((mine[i] - others) ** 2))
                    j_ind.append(js >= hs)
                    h_ind.append(hs >= js)
                d = np.array(h_ind, float) - np.array(j_ind, float)
                p_values.append(stats.ttest_1samp(d, eps, alternative="less").pvalue)
                rhos.append(np.mean(j_ind))
            rejected = multipletests(p_values, alpha=0.05, method="fdr_by")[0]
            out[(criterion, judge)] = (float(np.mean(rejected)), float(np.mean(rhos)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(setting("statsmodels"))
    table = study()
    n_items = table.data["item"].nunique()
    print(
        f"{len(table.judge_names)} judges × {n_items} items × {len(table.criteria)} criteria, "
        f"{len(table.human_names)} humans, {len(table.data):,} labels"
    )
    ours = timed(lambda: alt_test(table, epsilon=0.1, scoring="neg_rmse"), repeats=args.repeats)
    theirs = timed(lambda: loop(table, 0.1), repeats=args.repeats)
    result = ours.value.table.set_index(["criterion", "judge"])
    for key, (omega, rho) in theirs.value.items():
        assert abs(result.loc[key, "winning_rate"] - omega) < 1e-12, key
        assert abs(result.loc[key, "advantage_probability"] - rho) < 1e-12, key
    print(f"vectorised alt-test: {ours}")
    print(f"item-by-item loop:   {theirs}")
    print(f"ratio (loop / ours, best CPU): {theirs.best_cpu / ours.best_cpu:.0f}×; ω and ρ identical")


if __name__ == "__main__":
    main()
