"""Comparative models at arena scale: ours against evalica and choix in one run, printing ratios.

Simulated pairwise votes (LMArena-style: random pairs of S systems, annotators and prompts drawn at
random, one row per comparison) and rankings. Cases (CPU seconds, one warm-up then ``--repeats``
timed calls per side, best and median; see benchmarks/_common.py):

- pooled Bradley–Terry end to end from the DataFrame (:func:`~humaneval.comparative.counts.count_pairs`:
  ids checked, mirror rows paired, win counts; then the fit) against ``evalica.bradley_terry`` with its
  winners list made from the same frame, first calls in the process (cold) and warm;
- pooled Bradley–Terry from the validated table (whose ids are coded once by validation, printed
  apart): :func:`build_judgements` + the Newton fit
  (choix's ILSR start on the win counts) against ``evalica.bradley_terry`` (its Rust solver, the
  same winners) and ``choix.ilsr_pairwise`` (integer pairs handed over ready-made); max |Δθ| of the
  centred log-strengths;
- Davidson (10 % ties; no reference implements it) and Plackett–Luce (rankings of 4 of S systems)
  against ``choix.ilsr_rankings``;
- cluster bootstraps, 1,000 replicates: ``two-way`` (3 × 1,000; prompts of one and of four
  comparisons) and ``naive`` against
  ``evalica.bootstrap`` of its Bradley–Terry (i.i.d. resamples of comparisons; run with
  ``--evalica-resamples`` and scaled to 1,000, marked extrapolated);
- the mixed-effects Bradley–Terry model (annotator × system deviations) on ``--mixed`` comparisons
  × 1,000 annotators × 50 systems: one ``fit_spec`` (no reference at this size: ``ordinal::clmm``
  is benchmarked on small designs in bench_comparative_mixed.py).

Usage: ``python benchmarks/bench_comparative_arena.py [--sizes 100000 1000000] [--skip mixed]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from benchmarks._common import require, setting, timed


def votes(
    n: int, n_sys: int, seed: int, ties: float = 0.0, annotator_sd: float = 0.0, annotators=1000, per_prompt=1
):
    """One row per comparison; ``score`` of the row's system (1 won, 0 lost, 0.5 tie)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_sys)
    deviation = rng.normal(0, annotator_sd, (annotators, n_sys))
    who = rng.integers(0, annotators, n)
    a = rng.integers(0, n_sys, n)
    b = (a + rng.integers(1, n_sys, n)) % n_sys
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + deviation[who, a] - deviation[who, b])))
    u = rng.random(n)
    score = np.where(u < ties, 0.5, np.where(u < ties + (1 - ties) * p, 1.0, 0.0))
    names = np.array([f"model-{k:02d}" for k in range(n_sys)])
    prompt = np.arange(n) // per_prompt
    # one judgement per annotator, prompt and pair of systems (either order)
    key = (who.astype(np.int64) * (n + 1) + prompt) * n_sys**2 + np.minimum(a, b) * n_sys + np.maximum(a, b)
    keep = ~pd.Series(key).duplicated().to_numpy()
    who, a, b, score, prompt = who[keep], a[keep], b[keep], score[keep], prompt[keep]
    return pd.DataFrame(
        {
            "annotator": np.char.add("w", who.astype(str)),
            "document": np.char.add("p", prompt.astype(str)),
            "system": names[a],
            "opponent": names[b],
            "score": score,
        }
    )


def rankings(n: int, n_sys: int, seed: int, size: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_sys)
    shown = np.argsort(rng.random((n, n_sys)), axis=1)[:, :size]
    utility = theta[shown] + rng.gumbel(size=shown.shape)
    rank = np.argsort(np.argsort(-utility, axis=1), axis=1) + 1
    names = np.array([f"model-{k:02d}" for k in range(n_sys)])
    return pd.DataFrame(
        {
            "annotator": np.repeat(np.char.add("w", (np.arange(n) % 1000).astype(str)), size),
            "document": np.repeat(np.char.add("p", np.arange(n).astype(str)), size),
            "system": names[shown.ravel()],
            "rank": rank.ravel(),
        }
    )


def centred(x: np.ndarray) -> np.ndarray:
    return x - x.mean()


def line(name: str, ours, others: dict) -> None:
    parts = [f"{name}: ours {ours.best_cpu:.3f} s (median {ours.median_cpu:.3f})"]
    for label, (t, scale, note) in others.items():
        cpu = t.best_cpu * scale
        parts.append(f"{label} {cpu:.3f} s{note} = {cpu / ours.best_cpu:.1f}x ours")
    print("; ".join(parts), flush=True)


def pooled(n: int, n_sys: int, repeats: int) -> None:
    import choix
    import evalica

    from humaneval.comparative import build_judgements
    from humaneval.comparative.analyze import _choix_start
    from humaneval.comparative.counts import count_pairs, counts_judgements
    from humaneval.comparative.engine import fit_events
    from humaneval.core.ratings import as_ratings

    table = votes(n, n_sys, seed=1)

    def from_frame():
        j = counts_judgements(count_pairs(table))
        return j, fit_events(j.features, j.mask, j.chosen, j.event_counts, _choix_start(j))

    def reference():
        winners = np.where(table["score"] == 1, evalica.Winner.X, evalica.Winner.Y).tolist()
        return evalica.bradley_terry(table["system"].to_numpy(), table["opponent"].to_numpy(), winners)

    # first calls in this process (nothing of either side has run yet), then warm
    cold = {"ours": timed(from_frame, 1, warmup=False), "evalica": timed(reference, 1, warmup=False)}
    warm = {"ours": timed(from_frame, repeats), "evalica": timed(reference, repeats)}
    for state, t in (("cold", cold), ("warm", warm)):
        ratio = t["evalica"].best_cpu / t["ours"].best_cpu
        print(
            f"Bradley–Terry end to end from the DataFrame ({n:,} comparisons, {state}): ours (win counts: "
            f"ids checked, mirrors paired, fit) {t['ours'].best_cpu:.3f} s CPU; evalica (winners list + fit) "
            f"{t['evalica'].best_cpu:.3f} s = {ratio:.2f}x evalica's speed",
            flush=True,
        )
    _, fit_counts = warm["ours"].value
    scores = warm["evalica"].value.scores.reindex(sorted(set(table["system"]) | set(table["opponent"])))
    gap = np.abs(centred(np.r_[0.0, fit_counts.beta[0]]) - centred(np.log(scores.to_numpy()))).max()
    print(f"  max |Δθ| vs evalica {gap:.1e}")
    ratings = as_ratings(table)

    def ours():
        j = build_judgements(ratings)
        fit = fit_events(j.features, j.mask, j.chosen, j.event_counts, _choix_start(j))
        return j, fit

    winners = np.where(table["score"] == 1, evalica.Winner.X, evalica.Winner.Y).tolist()
    xs, ys = table["system"].to_numpy(), table["opponent"].to_numpy()
    t_ours = timed(ours, repeats)
    t_evalica = timed(lambda: evalica.bradley_terry(xs, ys, winners), repeats)
    codes = pd.Index(sorted(set(xs))).get_indexer
    a, b = codes(xs), codes(ys)
    won = table["score"].to_numpy() == 1
    data = list(zip(np.where(won, a, b).tolist(), np.where(won, b, a).tolist(), strict=True))
    t_choix = timed(lambda: choix.ilsr_pairwise(n_sys, data, alpha=0.0, max_iter=500), repeats)
    judgements, fit = t_ours.value
    theta = centred(np.r_[0.0, fit.beta[0]])
    scores = t_evalica.value.scores.reindex(list(judgements.systems)).to_numpy()
    gap_e = np.abs(theta - centred(np.log(scores))).max()
    gap_c = np.abs(theta - centred(t_choix.value)).max()
    line(
        f"Bradley–Terry, {n:,} comparisons, {n_sys} systems",
        t_ours,
        {"evalica": (t_evalica, 1, ""), "choix ilsr_pairwise": (t_choix, 1, "")},
    )
    print(f"  max |Δθ| vs evalica {gap_e:.1e} (its tolerance 1e-6), vs choix {gap_c:.1e}")
    validation = timed(lambda: as_ratings(table), 1)
    print(
        f"  validating the table once (as_ratings: ids stripped and coded, checks; not in the ratios above): "
        f"{validation.best_cpu:.3f} s CPU; end to end {validation.best_cpu + t_ours.best_cpu:.3f} s = "
        f"{t_evalica.best_cpu / (validation.best_cpu + t_ours.best_cpu):.1f}x evalica's speed"
    )
    tied = as_ratings(votes(n, n_sys, seed=2, ties=0.1))

    def davidson():
        j = build_judgements(tied)
        return fit_events(j.features, j.mask, j.chosen, j.event_counts)

    line(f"Davidson (10 % ties), {n:,} comparisons", timed(davidson, repeats), {})


def plackett_luce(n: int, n_sys: int, repeats: int) -> None:
    import choix

    from humaneval.comparative import build_judgements
    from humaneval.comparative.engine import fit_events
    from humaneval.core.ratings import as_ratings

    table = rankings(n, n_sys, seed=3)
    ratings = as_ratings(table)

    def ours():
        j = build_judgements(ratings)
        return j, fit_events(j.features, j.mask, j.chosen, j.event_counts)

    codes = pd.Index(sorted(table["system"].unique())).get_indexer(table["system"])
    order = np.lexsort((table["rank"].to_numpy(), np.arange(len(table)) // 4))
    data = [tuple(r) for r in codes[order].reshape(-1, 4).tolist()]
    t_ours = timed(ours, repeats)
    t_choix = timed(lambda: choix.ilsr_rankings(n_sys, data, alpha=0.0, max_iter=500), repeats)
    _, fit = t_ours.value
    gap = np.abs(centred(np.r_[0.0, fit.beta[0]]) - centred(t_choix.value)).max()
    line(f"Plackett–Luce, {n:,} rankings of 4 of {n_sys}", t_ours, {"choix ilsr_rankings": (t_choix, 1, "")})
    print(f"  max |Δθ| vs choix {gap:.1e}")


def bootstrap(n: int, n_sys: int, evalica_resamples: int) -> None:
    import evalica

    from humaneval.comparative import bootstrap_vcov, build_judgements
    from humaneval.core.ratings import as_ratings

    table = votes(n, n_sys, seed=4, annotator_sd=0.5)
    judgements = build_judgements(as_ratings(table))
    two_way = timed(lambda: bootstrap_vcov(judgements, "two-way", 1000, seed=1), 1)
    naive = timed(lambda: bootstrap_vcov(judgements, "naive", 1000, seed=1), 1)
    winners = np.where(table["score"] == 1, evalica.Winner.X, evalica.Winner.Y).tolist()
    xs, ys = table["system"].to_numpy(), table["opponent"].to_numpy()
    reference = timed(
        lambda: evalica.bootstrap(
            evalica.bradley_terry,
            xs,
            ys,
            winners,
            n_resamples=evalica_resamples,
            random_state=1,
            bootstrap_method="percentile",
        ),
        1,
    )
    scale = 1000 / evalica_resamples
    note = f" (extrapolated from {evalica_resamples})" if scale != 1 else ""
    line(f"two-way cluster bootstrap 3 x 1,000, {n:,} comparisons, one per prompt", two_way, {})
    shared = build_judgements(as_ratings(votes(n, n_sys, seed=4, annotator_sd=0.5, per_prompt=4)))
    line(
        f"two-way cluster bootstrap 3 x 1,000, {n:,} comparisons, 4 per prompt",
        timed(lambda: bootstrap_vcov(shared, "two-way", 1000, seed=1), 1),
        {},
    )
    line(
        f"naive bootstrap 1,000, {n:,} comparisons",
        naive,
        {"evalica.bootstrap(bradley_terry)": (reference, scale, note)},
    )


def mixed(n: int, repeats: int) -> None:
    from humaneval.clmm import fit_spec
    from humaneval.comparative import build_judgements, mixed_design
    from humaneval.comparative.mixed import mixed_spec
    from humaneval.core.ratings import as_ratings

    table = votes(n, 50, seed=5, annotator_sd=0.5)
    judgements = build_judgements(as_ratings(table))
    spec = mixed_spec(mixed_design(judgements), judgements.systems, ("annotator",))
    t = timed(lambda: fit_spec(spec), repeats, warmup=False)
    fit = t.value
    print(
        f"mixed-effects Bradley–Terry, {n:,} comparisons x 1,000 annotators x 50 systems (annotator "
        f"deviations): CPU {t.best_cpu:.1f} s, wall {t.best_wall:.1f} s (target < 60 s on 2 cores); "
        f"failed {fit.diagnostics.failed}, max.grad {fit.diagnostics.max_grad:.1e}, logLik {fit.loglik:.2f}",
        flush=True,
    )


def mixed_default(n: int) -> None:
    """The default mixed model (annotator and document deviations) on n comparisons × 200 annotators ×
    500 prompts × 10 systems (issue 41: goal < 60 CPU-s at 10⁴, < 5 CPU-min at 10⁵)."""
    from humaneval.comparative import build_judgements, fit_mixed_bt
    from humaneval.core.ratings import as_ratings

    table = votes(n, 10, seed=6, annotator_sd=0.5, annotators=200, per_prompt=n // 500)
    judgements = build_judgements(as_ratings(table))
    t = timed(lambda: fit_mixed_bt(judgements), 1, warmup=False)
    fit = t.value.clmm
    print(
        f"mixed-effects Bradley–Terry, default terms (annotator + document), {n:,} comparisons x 200 "
        f"annotators x {judgements.document.max() + 1} prompts x 10 systems: CPU {t.best_cpu:.1f} s, wall "
        f"{t.best_wall:.1f} s; failed {fit.diagnostics.failed}, max.grad {fit.diagnostics.max_grad:.1e}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--evalica-resamples", type=int, default=50)
    parser.add_argument("--mixed", type=int, default=100_000)
    parser.add_argument("--mixed-default", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["pooled", "pl", "bootstrap", "mixed", "mixed-default"]
    )
    args = parser.parse_args()
    require("evalica")
    require("choix")
    print(setting("evalica", "choix"), flush=True)
    for n in args.sizes:
        if "pooled" not in args.skip:
            pooled(n, args.systems, args.repeats)
        if "pl" not in args.skip:
            plackett_luce(n // 4, args.systems, args.repeats)
        if "bootstrap" not in args.skip:
            bootstrap(n, args.systems, args.evalica_resamples)
    if "mixed" not in args.skip:
        mixed(args.mixed, 1)
    if "mixed-default" not in args.skip:
        for n in args.mixed_default:
            mixed_default(n)
    print(setting("evalica", "choix"), flush=True)


if __name__ == "__main__":
    main()
