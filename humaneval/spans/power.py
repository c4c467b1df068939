"""Power of a span study: how often a planned study finds the systems' score differences.

Every trial simulates a study (:func:`~humaneval.spans.simulate.simulate_spans`), scores every
annotator's item (MQM or ESA), averages the scores per document and system, and tests every pair of
systems with a paired t-test over documents, Holm-adjusted across pairs. Power is the share of
trials in which a pair differs at ``alpha``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.errors import OptionError
from humaneval.present.document import Block, Paragraph
from humaneval.present.formatting import fmt
from humaneval.present.printable import Printable, frame_table
from humaneval.spans.scoring import default_scoring, get_scoring, item_scores
from humaneval.spans.simulate import simulate_spans
from humaneval.spans.table import SpanTable

MAX_TRIALS = 10_000


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment (as statsmodels' ``multipletests``, whose per-call garbage
    collection would dominate thousands of small families).

    Examples
    --------
    >>> _holm(np.array([0.01, 0.04, 0.03])).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    order = np.argsort(p)
    m = len(p)
    stepped = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return out


def span_power(
    systems: Mapping[str, float],
    *,
    n_documents: int,
    n_annotators: int,
    scoring: str = "mqm",
    trials: int = 200,
    alpha: float = 0.05,
    seed: int = 1,
    **simulation: Any,
) -> pd.DataFrame:
    """Simulated power of every pair of systems in a span study.

    Parameters
    ----------
    systems : mapping
        System → mean number of true errors per item.
    n_documents, n_annotators : int
        The planned study (every annotator marks every item).
    scoring : {"mqm", "esa"}
        The item score tested.
    trials : int
        Simulated studies.
    alpha : float
        Significance level of the Holm-adjusted paired t-tests.
    seed : int
    **simulation
        Further options of :func:`~humaneval.spans.simulate.simulate_spans` (``recall``,
        ``false_alarms``, ``major``, ``length``).

    Returns
    -------
    DataFrame
        ``system_a, system_b, mean_difference, power, trials``: ``mean_difference`` is the mean
        over trials of the difference of mean scores (a − b).

    Examples
    --------
    >>> table = span_power({"A": 0.5, "B": 0.5}, n_documents=6, n_annotators=2, trials=20)
    >>> bool(table["power"].iloc[0] <= 0.2)  # no true difference: rejections are rare
    True
    """
    get_scoring(scoring)
    if len(systems) < 2:
        raise OptionError("give at least two systems to compare")
    if not 1 <= trials <= MAX_TRIALS:
        raise OptionError(f"trials={trials} must lie between 1 and {MAX_TRIALS:,}")
    if not 0 < alpha < 1:
        raise OptionError(f"alpha={alpha} must lie between 0 and 1, e.g. 0.05")
    if n_documents < 3 or n_annotators < 1:
        raise OptionError("a span study needs at least 3 documents and 1 annotator")
    pairs = list(combinations(systems, 2))
    hits = np.zeros(len(pairs))
    differences = np.zeros(len(pairs))
    seeds = np.random.SeedSequence(seed).generate_state(trials)
    for trial_seed in seeds:
        spans, texts = simulate_spans(
            dict(systems),
            n_documents=n_documents,
            n_annotators=n_annotators,
            esa=scoring == "esa",
            seed=int(trial_seed),
            **simulation,
        )
        lengths = texts.set_index(["document", "system"])["text"].str.len()
        scores = item_scores(SpanTable(spans, lengths), scoring)  # simulated rows are valid by construction
        means = scores.groupby(["document", "system"])["score"].mean().unstack()
        p = []
        for k, (a, b) in enumerate(pairs):
            diff = means[a] - means[b]
            differences[k] += diff.mean()
            p.append(stats.ttest_rel(means[a], means[b]).pvalue if diff.std() > 0 else 1.0)
        hits += _holm(np.nan_to_num(np.array(p), nan=1.0)) < alpha
    return pd.DataFrame(
        {
            "system_a": [a for a, _ in pairs],
            "system_b": [b for _, b in pairs],
            "mean_difference": differences / trials,
            "power": hits / trials,
            "trials": trials,
        }
    )


@dataclass(frozen=True, repr=False)
class SpanPower(Printable):
    """Power of a planned span study simulated from a pilot span table (``humaneval power --pilot``).

    Attributes
    ----------
    table : DataFrame
        :func:`span_power`'s ``system_a, system_b, mean_difference, power, trials``.
    errors_per_item : dict
        System → mean number of true errors per item simulated (from the pilot).
    settings : dict
        ``n_documents``, ``n_annotators``, ``scoring``, ``alpha``, ``recall``, ``false_alarms``,
        ``major`` and ``length`` of the simulation.
    """

    table: pd.DataFrame
    errors_per_item: dict[str, float]
    settings: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "spans",
            **self.settings,
            "errors_per_item": dict(self.errors_per_item),
            "pairs": self.table.to_dict(orient="records"),
        }

    def blocks(self, source: str | None = None) -> tuple[Block, ...]:
        s = self.settings
        head = (
            f"{source + ': ' if source else ''}power of a span study of {s['n_documents']} documents × "
            f"{s['n_annotators']} annotators, {s['scoring']} scores, Holm-adjusted paired t-tests over "
            f"documents at α = {s['alpha']:g}, {int(self.table['trials'].iloc[0])} simulated studies"
        )
        rates = ", ".join(f"{k} {fmt(v)}" for k, v in self.errors_per_item.items())
        note = (
            f"true errors per item from the pilot: {rates} (its marked spans per item, less "
            f"{s['false_alarms']:g} false alarms, over recall {s['recall']:g}); major share {fmt(s['major'])}"
        )
        table = frame_table(
            self.table, {"system_a": None, "system_b": None, "mean_difference": fmt, "power": fmt}
        )
        return Paragraph((head,)), table, Paragraph((f"note: {note}",), "note")


def pilot_power(
    pilot: SpanTable,
    *,
    n_documents: int,
    n_annotators: int,
    scoring: str | None = None,
    trials: int = 200,
    alpha: float = 0.05,
    seed: int = 1,
    recall: float = 0.8,
    false_alarms: float = 0.2,
) -> SpanPower:
    """:func:`span_power` of a planned study with the error rates of a pilot span table.

    Each system's true errors per item are its pilot's marked spans per annotator and item, less
    ``false_alarms``, over ``recall`` (the annotators' assumed hit rate; at least 0); the share of
    major errors and the texts' mean length are the pilot's.

    Parameters
    ----------
    pilot : SpanTable
    n_documents, n_annotators : int
        The planned study (every annotator marks every item of a document).
    scoring : {"mqm", "esa"}, optional
        Default: the pilot's rule (``esa`` when it has scores, else ``mqm``).
    trials, alpha, seed
        As :func:`span_power`.
    recall, false_alarms : float
        As :func:`~humaneval.spans.simulate.simulate_spans`.

    Returns
    -------
    SpanPower

    Examples
    --------
    >>> from humaneval.spans.simulate import simulate_spans
    >>> from humaneval.spans.table import load_spans
    >>> spans, texts = simulate_spans({"A": 0.5, "B": 2.0}, n_documents=6, n_annotators=2, seed=2)
    >>> pilot = load_spans(spans.assign(length=120))
    >>> result = pilot_power(pilot, n_documents=20, n_annotators=3, scoring="mqm", trials=20)
    >>> sorted(result.errors_per_item)
    ['A', 'B']
    """
    if not 0 < recall <= 1 or false_alarms < 0:
        raise OptionError(f"recall={recall} must lie in (0, 1] and false_alarms={false_alarms} be >= 0")
    views = pilot.items.groupby("system").size()
    marked = pilot.spans.groupby("system").size().reindex(views.index, fill_value=0)
    rates = ((marked / views - false_alarms) / recall).clip(lower=0)
    severities = pilot.spans["severity"].dropna()
    major = float((severities == "major").mean()) if len(severities) else 0.3
    length = max(10, round(float(pilot.lengths.mean())))
    rule = scoring or pilot.scoring or default_scoring(pilot)
    errors = {str(k): float(v) for k, v in rates.items()}
    table = span_power(
        errors, n_documents=n_documents, n_annotators=n_annotators, scoring=rule, trials=trials,
        alpha=alpha, seed=seed, recall=recall, false_alarms=false_alarms, major=major, length=length,
    )  # fmt: skip
    settings = {
        "n_documents": n_documents, "n_annotators": n_annotators, "scoring": rule, "alpha": alpha,
        "recall": recall, "false_alarms": false_alarms, "major": major, "length": length,
    }  # fmt: skip
    return SpanPower(table, errors, settings)
