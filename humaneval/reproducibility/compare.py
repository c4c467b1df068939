"""Compare a repeat study with the original: CV* per measurand, rank correlations, swapped labels.

docs/reproducibility.md, "Comparing a repeat with the original".
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from math import factorial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from humaneval.core.ratings import Ratings, load_ratings
from humaneval.errors import InsufficientDataError, RatingsError
from humaneval.io.tables import read_table
from humaneval.present.document import Block, Paragraph
from humaneval.present.printable import Printable
from humaneval.reproducibility.qra import cv_star

#: Label permutations enumerated exactly up to this many; beyond, ``n_permutations`` random ones.
_EXACT_LIMIT = 40320
#: Every pair of systems is tested: beyond this many systems the pairs are too many to test.
MAX_SYSTEMS = 200
#: Values (and ``scale_min``) beyond this size are refused: their squares overflow in CV*.
MAX_ABS_VALUE = 1e12


@dataclass(frozen=True)
class RunValues:
    """One run reduced to cells: ``criterion, system, document, value`` (document ``""`` when the
    file gives one value per system) and the lowest value of its scale."""

    cells: pd.DataFrame
    scale_min: float
    source: str


@dataclass(frozen=True, eq=False)
class RunComparison(Printable):
    """What :func:`compare_runs` returns; :meth:`to_dict` is ``compare-runs --json``.

    ``measurands``: criterion, system, original, repeat, cv_star, cv_low, cv_high (one row per
    system mean). ``rankings``: per criterion, systems, spearman (and its p), kendall (and its p).
    ``swaps``: per criterion and pair of systems, the correlation as labelled (``r``), with the two
    labels exchanged (``r_swapped``), ``swap_p``, its Holm adjustment over the pairs ``swap_p_adj``
    and ``flagged``.
    """

    measurands: pd.DataFrame
    rankings: pd.DataFrame
    swaps: pd.DataFrame
    alpha: float
    test: str

    @property
    def flagged(self) -> pd.DataFrame:
        return self.swaps[self.swaps["flagged"]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "swap_test": self.test,
            "measurands": self.measurands.to_dict(orient="records"),
            "rankings": self.rankings.to_dict(orient="records"),
            "swaps": self.swaps.to_dict(orient="records"),
            "flagged": self.flagged[["criterion", "system_a", "system_b"]].to_dict(orient="records"),
        }

    def blocks(self) -> tuple[Block, ...]:
        lines = []
        for row in self.rankings.itertuples():
            name = f"{row.criterion}: " if row.criterion else ""
            lines.append(
                f"{name}{row.systems} systems; ranking agreement Spearman {row.spearman:.3f}, "
                f"Kendall {row.kendall:.3f}"
            )
        mean_cv = self.measurands["cv_star"].mean()
        lines.append(
            f"CV* of the system means: median {self.measurands['cv_star'].median():.3g} "
            f"(mean {mean_cv:.3g}) over {len(self.measurands)} measurands"
        )
        for row in self.flagged.itertuples():
            lines.append(
                f"LABELS SWAPPED? {row.system_a} ↔ {row.system_b}"
                + (f" ({row.criterion})" if row.criterion else "")
                + f": the repeat agrees better with the two labels exchanged (r {row.r:.3f} → "
                f"{row.r_swapped:.3f}, swap_p = {row.swap_p:.3g})"
            )
        if self.flagged.empty:
            lines.append(f"no pair of systems whose labels look exchanged (swap_p ≥ {self.alpha:g})")
        return tuple(Paragraph((line,)) for line in lines)


def run_values(source: Ratings | pd.DataFrame | str | Path, *, scale_min: float | None = None) -> RunValues:
    """Reduce a ratings table, or a table ``system, value`` (optionally ``criterion``, ``document``),
    to the mean value of every cell.

    Parameters
    ----------
    source : Ratings, DataFrame or path
        A ratings table (human, non-check rows are used) or a table of values.
    scale_min : float, optional
        The lowest value of the scale (default: a ratings table's declared or observed minimum, 0 for a
        table of values).
    """
    name = str(source) if isinstance(source, str | Path) else "run"
    if isinstance(source, str | Path):
        frame = read_table(Path(source))
        source = frame if {"system", "value"} <= set(frame.columns) else load_ratings(Path(source))
    if isinstance(source, pd.DataFrame) and {"system", "value"} <= set(source.columns):
        values = pd.to_numeric(source["value"], errors="coerce")
        if values.isna().any() or not np.isfinite(values).all():
            row = int(np.flatnonzero(values.isna() | ~np.isfinite(values.fillna(0)))[0]) + 2
            raise RatingsError(f"{name}: line {row}: column value must be a finite number")
        if (values.abs() > MAX_ABS_VALUE).any():
            row = int(np.flatnonzero(values.abs() > MAX_ABS_VALUE)[0])
            raise RatingsError(
                f"{name}: line {row + 2}: value {values.iloc[row]:g} is beyond ±{MAX_ABS_VALUE:g}; rescale "
                "the values"
            )
        cells = pd.DataFrame(
            {
                "criterion": source["criterion"].astype(str) if "criterion" in source else "",
                "system": source["system"].astype(str),
                "document": source["document"].astype(str) if "document" in source else "",
                "value": values.astype(float),
            }
        )
        twice = np.flatnonzero(cells.duplicated(["criterion", "system", "document"]))
        if len(twice):  # a second value would be averaged in without a word
            where = cells.iloc[int(twice[0])]
            raise RatingsError(
                f"{name}: line {int(twice[0]) + 2}: a second value for system {where['system']!r}"
                + (f", document {where['document']!r}" if where["document"] else "")
                + (f", criterion {where['criterion']!r}" if where["criterion"] else "")
                + "; give one value per system (and document and criterion)"
            )
        low = 0.0 if scale_min is None else scale_min
    else:
        ratings = source if isinstance(source, Ratings) else load_ratings(source)
        ratings = ratings.humans().without_checks()
        data = ratings.data
        cells = pd.DataFrame(
            {
                "criterion": data["criterion"].astype(str) if "criterion" in data else "",
                "system": data["system"].astype(str),
                "document": data["document"].astype(str),
                "value": ratings.reported().astype(float),
            }
        )
        low = float(min(ratings.scale[0], cells["value"].min())) if scale_min is None else scale_min
    cells = cells.groupby(["criterion", "system", "document"], as_index=False)["value"].mean()
    return RunValues(cells, low, name)


def compare_runs(
    original: Ratings | pd.DataFrame | str | Path,
    repeat: Ratings | pd.DataFrame | str | Path,
    *,
    scale_min: float | None = None,
    alpha: float = 0.05,
    n_permutations: int = 9999,
    seed: int = 1,
) -> RunComparison:
    """Compare a repeat of a study with the original, per criterion.

    Parameters
    ----------
    original, repeat : Ratings, DataFrame or path
        Two ratings tables of the same systems, or two tables ``system, value`` (optional ``criterion``
        and ``document`` columns).
    scale_min : float, optional
        Lowest value of the scale, subtracted before CV* (QRA compares on 0-based scales); default: the
        lower of the two runs' scale minima.
    alpha : float, default 0.05
        Level at which ``swap_p`` flags a pair.
    n_permutations : int, default 9999
        Random permutations when the exact test has too many.
    seed : int, default 1
        Seed of the random permutations.

    Returns
    -------
    RunComparison
        CV* of every system mean over the two runs (with its interval), Spearman and Kendall between
        the runs' system rankings, and for every pair of systems ``swap_p``: with per-document values,
        a one-sided sign-flip test over documents of d = |R_a−O_a| + |R_b−O_b| − |R_a−O_b| − |R_b−O_a|
        (positive where the repeat's a matches the original's b) on values centred per document; with
        one value per system, the share of the repeat's label permutations whose Pearson r with the
        original is at least the swapped one's. A pair is flagged when swapping fits better and the
        Holm-adjusted swap_p < alpha (and, with one value per system, the runs as labelled agree no
        better than chance at alpha); of flagged pairs sharing a system only the one that gains most
        is kept.

    References
    ----------
    Belz, A., Popović, M. and Mille, S. (2022). Quantified Reproducibility Assessment of NLP Results. ACL.

    Examples
    --------
    >>> original = pd.DataFrame({"system": list("ABCDEFG"), "value": [1, 2, 3, 4, 5, 6, 7]})
    >>> repeat = pd.DataFrame({"system": list("ABCDEFG"), "value": [7.1, 2.1, 2.9, 4.2, 5.0, 6.1, 0.9]})
    >>> result = compare_runs(original, repeat)
    >>> result.flagged[["system_a", "system_b"]].values.tolist()
    [['A', 'G']]
    """
    if not 0 < alpha < 1:
        raise RatingsError(f"alpha must lie in (0, 1), got {alpha}")
    if scale_min is not None and not abs(scale_min) <= MAX_ABS_VALUE:
        raise RatingsError(
            f"scale_min (--scale-min) must be a number within ±{MAX_ABS_VALUE:g}, not {scale_min}"
        )
    first, second = run_values(original, scale_min=scale_min), run_values(repeat, scale_min=scale_min)
    low = min(first.scale_min, second.scale_min) if scale_min is None else scale_min
    rng = np.random.default_rng(seed)
    measurands, rankings, swaps = [], [], []
    tests = set()
    for criterion, part in first.cells.groupby("criterion", sort=True):
        other = second.cells[second.cells["criterion"] == criterion]
        if other.empty:
            raise RatingsError(f"{second.source}: no values for criterion {criterion!r} of {first.source}")
        o_sys = part.groupby("system")["value"].mean()
        r_sys = other.groupby("system")["value"].mean()
        systems = sorted(set(o_sys.index) & set(r_sys.index))
        missing = sorted(set(o_sys.index) ^ set(r_sys.index))
        if missing:
            raise RatingsError(
                f"the two runs must rate the same systems; only one has {', '.join(missing[:5])}"
            )
        if len(systems) < 2:
            raise InsufficientDataError("compare-runs needs at least two systems")
        if len(systems) > MAX_SYSTEMS:
            raise RatingsError(
                f"{first.source}: {len(systems)} systems; compare-runs tests every pair and takes at most "
                f"{MAX_SYSTEMS}"
            )
        for system in systems:
            r = cv_star([o_sys[system], r_sys[system]], scale_min=low)
            measurands.append(
                {
                    "criterion": criterion,
                    "system": system,
                    "original": float(o_sys[system]),
                    "repeat": float(r_sys[system]),
                    "cv_star": r.cv_star,
                    "cv_low": r.cv_interval[0],
                    "cv_high": r.cv_interval[1],
                }
            )
        o, r = o_sys[systems].to_numpy(), r_sys[systems].to_numpy()
        rho = stats.spearmanr(o, r)
        tau = stats.kendalltau(o, r)
        rankings.append(
            {
                "criterion": criterion,
                "systems": len(systems),
                "spearman": float(rho.statistic),
                "spearman_p": float(rho.pvalue),
                "kendall": float(tau.statistic),
                "kendall_p": float(tau.pvalue),
            }
        )
        documents = sorted(set(part["document"]) & set(other["document"]) - {""})
        if len(documents) >= 2:
            tests.add("sign-flip over documents")
            swaps += _document_swaps(criterion, part, other, systems, documents, alpha, n_permutations, rng)
        else:
            tests.add("label permutations of the system values")
            swaps += _label_swaps(criterion, o, r, systems, alpha, n_permutations, rng)
    return RunComparison(
        pd.DataFrame(measurands), pd.DataFrame(rankings), pd.DataFrame(swaps), alpha, "; ".join(sorted(tests))
    )


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _document_swaps(
    criterion: str,
    part: pd.DataFrame,
    other: pd.DataFrame,
    systems: list[str],
    documents: list[str],
    alpha: float,
    n_permutations: int,
    rng: np.random.Generator,
) -> list[dict[str, Any]]:
    # each document's mean over systems removed: runs differ in document and annotator effects, and
    # the test is about which system is which within a document
    o = _centred(part.pivot(index="document", columns="system", values="value").reindex(index=documents))
    r = _centred(other.pivot(index="document", columns="system", values="value").reindex(index=documents))
    rows = []
    for a, b in combinations(systems, 2):
        keep = o[[a, b]].notna().all(axis=1) & r[[a, b]].notna().all(axis=1)
        oa, ob = o.loc[keep, a].to_numpy(), o.loc[keep, b].to_numpy()
        ra, rb = r.loc[keep, a].to_numpy(), r.loc[keep, b].to_numpy()
        d = np.abs(ra - oa) + np.abs(rb - ob) - np.abs(ra - ob) - np.abs(rb - oa)
        as_is = _pearson(np.r_[oa, ob], np.r_[ra, rb])
        swapped = _pearson(np.r_[oa, ob], np.r_[rb, ra])
        if len(d) < 2 or not np.any(d):
            p = 1.0
        else:
            test = stats.permutation_test(
                (d,),
                np.mean,
                permutation_type="samples",
                alternative="greater",
                n_resamples=n_permutations,
                random_state=rng,
            )
            p = float(test.pvalue)
        row = _swap_row(criterion, a, b, as_is, swapped, p, len(d), p < alpha and d.mean() > 0)
        rows.append({**row, "gain": float(d.mean()) if len(d) else 0.0})
    return _matched(rows, alpha)


def _centred(table: pd.DataFrame) -> pd.DataFrame:
    return table.sub(table.mean(axis=1), axis=0)


def _label_swaps(
    criterion: str,
    o: np.ndarray,
    r: np.ndarray,
    systems: list[str],
    alpha: float,
    n_permutations: int,
    rng: np.random.Generator,
) -> list[dict[str, Any]]:
    k = len(systems)
    if factorial(k) <= _EXACT_LIMIT:
        orders = np.array(list(permutations(range(k))))
    else:
        orders = np.array([rng.permutation(k) for _ in range(n_permutations)])
    null = np.array([_pearson(o, r[order]) for order in orders])
    as_is = _pearson(o, r)
    p_as_is = float(np.mean(null >= as_is - 1e-12)) if np.isfinite(as_is) else 1.0
    rows = []
    for i, j in combinations(range(k), 2):
        swapped_r = r.copy()
        swapped_r[[i, j]] = swapped_r[[j, i]]
        swapped = _pearson(o, swapped_r)
        p = float(np.mean(null >= swapped - 1e-12)) if np.isfinite(swapped) else 1.0
        flag = bool(swapped > as_is and p < alpha and p_as_is >= alpha)
        row = _swap_row(criterion, systems[i], systems[j], as_is, swapped, p, 1, flag)
        rows.append({**row, "gain": swapped - as_is})
    return _matched(rows, alpha)


def _matched(rows: list[dict[str, Any]], alpha: float) -> list[dict[str, Any]]:
    """Holm-adjust ``swap_p`` over the pairs (``swap_p_adj``; a flag needs it below ``alpha``), then keep
    a flag only on the pairs that explain the mislabelling best: the flagged pairs taken by
    gain, largest first, each system in one pair at most (when a's label went to b, swapping a with a
    system close to b fits better too; that pair is not flagged)."""
    if rows:
        adjusted = multipletests([r["swap_p"] for r in rows], method="holm")[1]
        for row, p in zip(rows, adjusted, strict=True):
            row["swap_p_adj"] = float(p)
            row["flagged"] = bool(row["flagged"] and p < alpha)
    used: set[str] = set()
    for row in sorted((r for r in rows if r["flagged"]), key=lambda r: -r["gain"]):
        if {row["system_a"], row["system_b"]} & used:
            row["flagged"] = False
        else:
            used |= {row["system_a"], row["system_b"]}
    for row in rows:
        del row["gain"]
    return rows


def _swap_row(
    criterion: str, a: str, b: str, as_is: float, swapped: float, p: float, n: int, flag: bool
) -> dict[str, Any]:
    return {
        "criterion": criterion,
        "system_a": a,
        "system_b": b,
        "r": as_is,
        "r_swapped": swapped,
        "swap_p": p,
        "documents": n,
        "flagged": bool(flag),
    }
