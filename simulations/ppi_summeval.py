"""PPI on real data: SummEval coherence with BARTScore (or the random baseline) as the judge.

SummEval (``summeval-coherence-scores``): 17 systems × 100 CNN/DailyMail documents, one coherence
rating (1–5) per summary, and metric scores of every summary. Humans are kept on a random 20 of
the 100 documents (all 17 systems); the judge scores all 1,700 summaries. Each document is a
cluster. Repeated over ``--splits`` random choices of the 20 documents, the script reports per judge
the median λ, the median effective-n factor of the system means and the paired differences, and how
often the 95 % intervals cover the mean of all 100 documents' ratings (a finite-pool proxy of the
truth). It also compares, on one split, the prediction-powered proportional-odds contrasts with the
human-only ones and with the CLMM (``score ~ system + (1 | document)``, native engine) on the 20 and
on all 100 documents. Writes ``ppi_summeval.md`` to ``--out``.

    python simulations/ppi_summeval.py --splits 200
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.analysis import analyze
from humaneval.ppi import judge_categories, ppi_ordinal, ppi_systems

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "summeval-coherence-scores"
PAIRS = [
    ("BART", "Pegasus"),
    ("LEAD-3", "T5"),
    ("GPT-2 (zero shot)", "LEAD-3"),
    ("RNES", "Unified-ext-abs"),
    ("BanditSum", "neusum"),
]


def load(judge_file: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    human = pd.read_csv(DATA / "human.csv").rename(
        columns={"doc": "document", "summarizer": "system", "Qcoherence": "score"}
    )
    human["annotator"] = "rater-" + human["document"]  # one rating per summary; documents are the clusters
    judge = pd.read_csv(DATA / judge_file).rename(columns={"doc": "document", "summarizer": "system"})
    judge = judge.rename(columns={judge.columns[2]: "score"})[["document", "system", "score"]]
    return human, judge


def splits(human: pd.DataFrame, judge: pd.DataFrame, n_splits: int, seed: int) -> dict[str, float]:
    docs = np.sort(human["document"].unique())
    truth = human.groupby("system")["score"].mean()
    wide = human.pivot(index="document", columns="system", values="score")
    rng = np.random.default_rng(seed)
    lam, gain, pair_gain, cover, cover_h, width = [], [], [], [], [], []
    for _ in range(n_splits):
        kept = rng.choice(docs, 20, replace=False)
        result = ppi_systems(human[human["document"].isin(kept)], judge, adjust="none", n_resamples=0)
        table = result.systems.set_index("system")
        lam.append(table["lam"].median())
        gain.append(table["gain"].median())
        pair_gain.append(result.contrasts["gain"].median())
        t = truth.reindex(table.index)
        cover.append(((table["ci_low"] <= t) & (t <= table["ci_high"])).mean())
        cover_h.append(((table["human_ci_low"] <= t) & (t <= table["human_ci_high"])).mean())
        width.append(
            ((table["ci_high"] - table["ci_low"]) / (table["human_ci_high"] - table["human_ci_low"])).median()
        )
    del wide
    return {
        "lam": float(np.median(lam)),
        "gain": float(np.median(gain)),
        "pair_gain": float(np.median(pair_gain)),
        "width_ratio": float(np.median(width)),
        "coverage_ppi": float(np.mean(cover)),
        "coverage_human": float(np.mean(cover_h)),
    }


def ordinal_comparison(human: pd.DataFrame, judge: pd.DataFrame, seed: int) -> pd.DataFrame:
    docs = np.sort(human["document"].unique())
    kept = np.random.default_rng(seed).choice(docs, 20, replace=False)
    part = human[human["document"].isin(kept)]
    binned = judge.assign(score=judge_categories(judge["score"], 5))
    ppi = ppi_ordinal(part, binned, judge_name="bartscore")
    rows = []
    clmm = {}
    for name, data in (("20", part), ("100", human)):
        fit = analyze(data, formula="score ~ system + (1 | document)")
        clmm[name] = fit.contrasts.set_index(["system_a", "system_b"])
    p = ppi.contrasts.set_index(["system_a", "system_b"])
    h = ppi.human_contrasts.set_index(["system_a", "system_b"])
    for pair in PAIRS:
        rows.append(
            {
                "contrast": f"{pair[0]} − {pair[1]}",
                "PPI PO (20 docs + judge)": _cell(p, pair),
                "human PO (20 docs)": _cell(h, pair),
                "CLMM (20 docs)": _cell(clmm["20"], pair),
                "CLMM (100 docs)": _cell(clmm["100"], pair),
            }
        )
    table = pd.DataFrame(rows)
    table.attrs["lam"] = ppi.lam
    table.attrs["gain"] = float(ppi.contrasts["gain"].median())
    return table


def _cell(table: pd.DataFrame, pair: tuple[str, str]) -> str:
    return f"{table.loc[pair, 'estimate']:.2f} ({table.loc[pair, 'se']:.2f})"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--splits", type=int, default=200)
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--out", type=Path, default=HERE / "output")
    opts = args.parse_args()
    lines = [
        "| judge | r with humans | median λ | effective-n factor, means | width PPI / human "
        "| effective-n factor, differences | coverage PPI++ | coverage human-only |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, file in (("BARTScore", "bartscore.csv"), ("GRUEN", "gruen.csv"), ("random", "random.csv")):
        human, judge = load(file)
        r = np.corrcoef(
            human.set_index(["document", "system"])["score"],
            judge.set_index(["document", "system"])["score"].reindex(
                human.set_index(["document", "system"]).index
            ),
        )[0, 1]
        s = splits(human, judge, opts.splits, opts.seed)
        lines.append(
            f"| {name} | {r:.2f} | {s['lam']:.2f} | {s['gain']:.2f} | {s['width_ratio']:.2f} | "
            f"{s['pair_gain']:.2f} | {s['coverage_ppi']:.3f} | {s['coverage_human']:.3f} |"
        )
        print(lines[-1], flush=True)
    human, judge = load("bartscore.csv")
    table = ordinal_comparison(human, judge, opts.seed)
    lines += [
        "",
        f"Proportional-odds contrasts (log odds ratio, SE), one split, BARTScore in 5 equal-frequency "
        f"categories: λ = {table.attrs['lam']:.2f}, median effective-n factor {table.attrs['gain']:.2f}",
        "",
        "| " + " | ".join(table.columns) + " |",
        "|" + "---|" * len(table.columns),
    ]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in table.itertuples(index=False)]
    print("\n".join(lines[-len(table) - 3 :]))
    opts.out.mkdir(parents=True, exist_ok=True)
    (opts.out / "ppi_summeval.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
