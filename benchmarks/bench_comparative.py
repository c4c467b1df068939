"""Comparative judgements: our pooled Newton fit vs statsmodels' conditional logit, and full analyses.

For a MaxDiff study of 20 blocks × 5 documents × 3 annotators (3,000 tuples of 4 of 5 systems) times one
maximum-likelihood fit by :func:`humaneval.comparative.engine.fit_events` (identical events pooled)
against ``statsmodels`` ``ConditionalLogit`` on the expanded data (12 alternatives per tuple), checks the
estimates agree, and reports the time of a full ``analyze_comparative`` (two-way cluster bootstrap,
3 × 1000 replicates) for pairwise, best–worst and ranking studies of that size.
Usage: ``python benchmarks/bench_comparative.py``.
"""

from __future__ import annotations

import time

import numpy as np
from statsmodels.discrete.conditional_models import ConditionalLogit

from humaneval.comparative import analyze_comparative, build_judgements
from humaneval.comparative.engine import fit_events
from humaneval.comparative.simulate import simulate_bws_study, simulate_pairwise_study, simulate_ranking_study
from humaneval.core.ratings import load_ratings

THETA = [0.5, 0.2, 0.0, -0.2, -0.5]


def expanded(table):
    systems = sorted(table["system"].unique())
    groups, chosen, features = [], [], []
    for g, (_, part) in enumerate(table.groupby(["annotator", "tuple_id"])):
        members, scores = list(part["system"]), list(part["score"])
        for i, si in enumerate(members):
            for j, sj in enumerate(members):
                if i != j:
                    x = np.zeros(len(systems))
                    x[systems.index(si)] += 1
                    x[systems.index(sj)] -= 1
                    groups.append(g)
                    chosen.append(float(scores[i] == 1 and scores[j] == -1))
                    features.append(x[1:])
    return np.array(chosen), np.array(features), np.array(groups)


def main() -> None:
    bws = simulate_bws_study(THETA, blocks=20, annotator_sd=1.0, seed=1)
    start = time.perf_counter()
    judgements = build_judgements(bws)
    ours = fit_events(judgements.features, judgements.mask, judgements.chosen, judgements.event_counts)
    t_ours = time.perf_counter() - start
    y, x, g = expanded(bws)
    start = time.perf_counter()
    reference = ConditionalLogit(y, x, groups=g).fit(method="newton", disp=False, tol=1e-12)
    t_ref = time.perf_counter() - start
    gap = np.abs(ours.beta[0] - reference.params).max()
    print(
        f"MaxDiff fit, 3,000 tuples: ours {t_ours:.3f} s (incl. pooling), statsmodels {t_ref:.2f} s, "
        f"{t_ref / t_ours:.0f}x; max |Δβ| = {gap:.1e}"
    )
    pairwise = simulate_pairwise_study(THETA, blocks=20, annotator_sd=1.0, tie=0.3, seed=1)
    ranking = load_ratings(simulate_ranking_study(THETA, blocks=20, seed=1))
    studies = [
        ("pairwise (Davidson), 3,000 comparisons", pairwise),
        ("best-worst (MaxDiff), 3,000 tuples", bws),
        ("ranking (Plackett-Luce), 300 rankings", ranking),
    ]
    for name, table in studies:
        start = time.perf_counter()
        analyze_comparative(table, n_resamples=1000)
        print(f"analyze_comparative, {name}, two-way bootstrap 3 x 1000: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
