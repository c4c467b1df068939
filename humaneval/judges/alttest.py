"""The alternative-annotator test: may a judge replace the human annotators?

Calderon, Reichart & Dror (2025): leave one human out at a time; on every item that human labelled,
score how well the judge and the left-out human each agree with the remaining humans (accuracy
for categories and pairwise preferences, −RMSE for numbers, or any callable). The judge's
advantage indicator is 1 when its score is at least the human's, the human's when the human's is
at least the judge's (a tie counts for both). Per human, a one-sided t-test of
``H0: mean(human − judge indicators) ≥ ε`` — ε is the cost–benefit allowance the judge gets; a
rejection means the judge "wins" against that human. The p-values of all humans are corrected by
Benjamini–Yekutieli (q = 0.05): the winning rate ω is the share of humans beaten, and the judge
passes when ω ≥ 0.5. The advantage probability ρ, the mean over humans of how often the judge is
at least as good as the left-out human, compares judges without a threshold.

Items need at least two human labels (one to leave out, one to compare with); humans with fewer
than 30 items are left out of the t-tests, as the authors do (the t-test's normal approximation
needs them). A human whose differences never vary (the same indicator on every item) has no
t-statistic; the mean is then exact, and its p-value is 0 when the mean lies below ε, else 1.
Everything runs on arrays of items × humans × judges, one pass per criterion.

References
----------
Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge:
How to Statistically Justify Replacing Human Annotators with LLMs. ACL 2025, 16051–16081.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings
from humaneval.errors import DataWarning, InsufficientDataError, OptionError, RatingsError
from humaneval.judges.calibration import Calibration, calibrate
from humaneval.judges.data import LabelView, label_view
from humaneval.judges.numeric_text import numbers_from_text
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_value_ci
from humaneval.present.printable import Printable, frame_table

__all__ = [
    "EPSILON_BY_PROFILE",
    "AltTestResult",
    "Scoring",
    "alt_test",
    "resolve_epsilon",
]

#: The authors' rule of thumb for ε by who the human annotators are: experts are reliable but
#: costly (a judge gets a larger allowance), crowd workers cheap (a smaller one).
EPSILON_BY_PROFILE = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
#: Without ``epsilon`` or ``profile`` the strictest allowance (crowd) is used, so that a pass is
#: never an artefact of a generous default.
DEFAULT_PROFILE = "crowd"
#: Fewer items per human than this and the t-test's normal approximation fails (the authors).
MIN_ITEMS = 30
#: The authors recommend at least this many humans per item.
RECOMMENDED_HUMANS = 3
Scoring = Literal["accuracy", "neg_rmse", "auto"] | Callable[[Any, np.ndarray], float]


@dataclass(frozen=True, eq=False, repr=False)
class AltTestResult(Printable):
    """The alt-test of every judge (and criterion).

    Attributes
    ----------
    table:
        One row per criterion and judge: ``criterion, judge, winning_rate, advantage_probability,
        passed, n_items, n_humans, epsilon, scoring``.
    humans:
        One row per criterion, judge and left-out human: ``criterion, judge, human, n_items,
        advantage_probability`` (judge at least as good), ``human_advantage_probability``,
        ``statistic`` (t), ``p_value``, ``p_adjusted`` (Benjamini–Yekutieli) and ``judge_wins``.
    epsilon, q, scoring:
        The settings.
    cautions:
        What the data cannot support (few items, two humans per item, humans left out), each
        with the authors' guidance; judges mapped onto the humans' scale; numbers read from text.
    calibration:
        One row per criterion and judge of numeric labels
        (:func:`~humaneval.judges.calibration.calibrate`): why it is off the humans' scale, the map
        applied (``none``, ``minmax``, ``isotonic``) and the min–max map's slope and intercept.
    annotations:
        The labels as tested (numbers read from text, judges calibrated).
    indicators:
        Per criterion, the :class:`Indicators` the test ran on (for resampling the verdict).
    """

    table: pd.DataFrame
    humans: pd.DataFrame = field(repr=False)
    epsilon: float
    q: float
    scoring: str
    cautions: tuple[str, ...] = ()
    calibration: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    annotations: LabelView | None = field(default=None, repr=False)
    indicators: dict[str | None, Indicators] = field(default_factory=dict, repr=False)

    def heading(self) -> str:
        """The test's settings and its rule in one sentence (the first line of the summary)."""
        return (
            f"Alternative-annotator test (Calderon et al., 2025): ε = {self.epsilon:g}, "
            f"scoring {self.scoring}, Benjamini–Yekutieli q = {self.q:g}; a judge passes when it "
            "beats at least half of the humans (ω ≥ 0.5)."
        )

    def brief(self) -> str:
        """``ε = 0.2, accuracy: 6 judges, 2 pass``, the ``repr``."""
        return (
            f"ε = {self.epsilon:g}, {self.scoring}: {len(self.table)} judges, "
            f"{int(self.table['passed'].sum())} pass"
        )

    def blocks(self) -> tuple[Block, ...]:
        """The settings, one row per judge (ω, ρ, passed, items, humans) and the cautions."""
        columns: dict[str, Any] = {
            "judge": None,
            "winning_rate": fmt_value_ci,
            "advantage_probability": fmt_value_ci,
            "passed": None,
            "n_items": None,
            "n_humans": None,
        }
        if self.table["criterion"].notna().any():
            columns = {"criterion": None, **columns}
        out: list[Block] = [Paragraph((self.heading(),)), frame_table(self.table, columns)]
        if self.cautions:
            out.append(Bullets(tuple((f"Caution: {c}",) for c in self.cautions)))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "q": self.q,
            "scoring": self.scoring,
            "judges": _records(self.table),
            "humans": _records(self.humans),
            "calibration": _records(self.calibration),
            "cautions": list(self.cautions),
        }


def resolve_epsilon(epsilon: float | None = None, profile: str | None = None) -> float:
    """ε from an explicit value or the annotators' profile (expert 0.2, skilled 0.15, crowd 0.1).

    Raises
    ------
    OptionError
        ε outside [0, 1), or an unknown profile.

    Examples
    --------
    >>> resolve_epsilon(profile="expert"), resolve_epsilon(0.05), resolve_epsilon()
    (0.2, 0.05, 0.1)
    """
    if epsilon is not None:
        value = float(epsilon)
        if not 0 <= value < 1 or math.isnan(value):
            raise OptionError(
                f"--epsilon {epsilon} is outside [0, 1); ε is the judge's allowance on a probability, "
                "e.g. 0.2 for expert annotators, 0.1 for crowd workers"
            )
        return value
    key = (profile or DEFAULT_PROFILE).strip().lower()
    if key not in EPSILON_BY_PROFILE:
        raise OptionError(
            f"unknown annotator profile {profile!r}; use one of {', '.join(EPSILON_BY_PROFILE)}"
        )
    return EPSILON_BY_PROFILE[key]


@shared_docs
def alt_test(
    ratings: Ratings | Any,
    *,
    epsilon: float | None = None,
    profile: str | None = None,
    scoring: Scoring = "auto",
    criterion: str | None = None,
    q: float = 0.05,
    min_items: int = MIN_ITEMS,
    calibration: Calibration = "auto",
    seed: int | None = 1,
) -> AltTestResult:
    """Run the alternative-annotator test for every judge.

    Parameters
    ----------
    ratings : Ratings
        Humans and judges, the judges' rows marked ``rater_kind = judge``
        (:func:`~humaneval.judges.data.load_annotations`; a path or a dict is read with
        :func:`~humaneval.judges.data.read_annotations`).
    epsilon : float, optional
        The judge's cost–benefit allowance in [0, 1); by default from ``profile``.
    profile : {"expert", "skilled", "crowd"}, optional
        Who the humans are: ε = 0.2, 0.15, 0.1 (the authors' rule of thumb; default crowd, the
        strictest).
    scoring : {"auto", "accuracy", "neg_rmse"} or callable
        How a label agrees with the other humans' labels: ``accuracy`` (share equal), ``neg_rmse``
        (−root mean squared difference), or ``f(label, others) -> float`` (higher = closer).
        ``auto``: accuracy for categorical labels and pairwise preferences, −RMSE for numbers.
    criterion : str, optional
        Test one criterion only (default: each criterion separately).
    q : float
        The false-discovery rate of the Benjamini–Yekutieli correction over humans.
    min_items : int
        %(min_items)s
    calibration : {"auto", "minmax", "isotonic", "off"}
        How numeric judge labels are put on the humans' scale before −RMSE scoring
        (:func:`~humaneval.judges.calibration.calibrate`): ``auto`` maps judges off the scale
        (outside the humans' range, or fractional where the humans are whole) by min–max; ``off``
        refuses them. Labels that are all numbers written as text are read as numbers first (with
        ``scoring="auto"``).
    seed : int, optional
        Of the isotonic calibration's folds.

    Returns
    -------
    AltTestResult
        ``table`` (one row per judge) and ``humans`` (one row per left-out human).

    Raises
    ------
    RatingsError
        No judge, items a judge did not label, a judge with no overlap, one human per item.
    InsufficientDataError
        No human with ``min_items`` items.
    OptionError
        ε outside [0, 1) or an unknown scoring.
    RatingsError
        With ``calibration="off"``, a judge off the humans' scale.

    References
    ----------
    Calderon, Reichart & Dror (2025), ACL, Algorithm 1 (the alt-test procedure).

    Examples
    --------
    Three humans and a judge that always agrees with the majority pass at ε = 0.2:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 60)
    >>> noisy = lambda: {f"i{k}": "abc"[t if rng.random() < .7 else (t + 1) % 3] for k, t in enumerate(truth)}
    >>> humans = {"h1": noisy(), "h2": noisy(), "h3": noisy()}
    >>> judge = {"gpt": {f"i{k}": "abc"[t] for k, t in enumerate(truth)}}
    >>> from humaneval.judges import load_annotations
    >>> result = alt_test(load_annotations(humans, judge), epsilon=0.2)
    >>> result.table[["judge", "winning_rate", "passed", "n_items", "n_humans"]].to_dict("records")
    [{'judge': 'gpt', 'winning_rate': 1.0, 'passed': True, 'n_items': 60, 'n_humans': 3}]
    """
    table = label_view(ratings)
    eps = resolve_epsilon(epsilon, profile)
    if not 0 < q < 1:
        raise OptionError(f"q {q} must lie in (0, 1), e.g. 0.05")
    cautions: list[str] = []
    numbers = numbers_from_text(table) if _key(scoring) == "auto" and "opponent" not in table.data else None
    if numbers is not None:
        table = numbers
        cautions.append(
            "every label is a number written as text: scored as numbers (−RMSE); pass --scoring accuracy "
            "to score them as categories"
        )
    method = _scoring(scoring, table)
    mapping = pd.DataFrame()
    if method == "neg_rmse":
        table, mapping = calibrate(table, calibration, seed=seed)
        for row in mapping[mapping["calibration"] != "none"].itertuples():
            why = f" ({row.off_scale})" if row.off_scale else ""
            cautions.append(
                f"{'' if row.criterion is None else f'{row.criterion}: '}judge {row.judge!r}{why} was mapped "
                f"onto the humans' scale by {_MAPS[row.calibration]} before scoring"
            )
    if not table.judge_names:
        raise RatingsError(
            f"{table.source or 'the annotations'}: no judge; mark judges with a rater_kind column, "
            "--mark-judges NAME,... or a --judge-file"
        )
    criteria = table.criteria if criterion is None else [criterion]
    if criterion is not None and criterion not in table.criteria:
        choices = ", ".join(map(str, table.criteria))
        raise OptionError(f"criterion {criterion!r} is not in the annotations; use one of {choices}")
    rows, humans, indicators = [], [], {}
    for name in criteria:
        part = table.of_criterion(name)
        summary, detail, notes, indicators[name] = _one_criterion(part, eps, q, method, min_items)
        rows.append(summary.assign(criterion=name))
        humans.append(detail.assign(criterion=name))
        cautions += [f"{name}: {n}" if name is not None else n for n in notes]
    for note in cautions:
        warnings.warn(note, DataWarning, stacklevel=caller_stacklevel())
    label = method if isinstance(method, str) else getattr(method, "__name__", "callable")
    result = pd.concat(rows, ignore_index=True).assign(epsilon=eps, scoring=label)
    order = ["criterion", "judge", "winning_rate", "advantage_probability", "passed", "n_items", "n_humans"]
    detail = pd.concat(humans, ignore_index=True)
    detail = detail[["criterion"] + [c for c in detail.columns if c != "criterion"]]
    return AltTestResult(
        table=result[[*order, "epsilon", "scoring"]],
        humans=detail,
        epsilon=eps,
        q=q,
        scoring=label,
        cautions=tuple(cautions),
        calibration=mapping,
        annotations=table,
        indicators=indicators,
    )


_MAPS = {
    "minmax": "the min–max map of its range onto theirs (no human label used)",
    "isotonic": "a cross-fitted isotonic map of its labels onto the mean human label",
}


def _key(scoring: Scoring) -> str:
    return "callable" if callable(scoring) else str(scoring).strip().lower().replace("-", "_")


def _scoring(scoring: Scoring, table: LabelView) -> str | Callable[[Any, np.ndarray], float]:
    if callable(scoring):
        return scoring
    key = _key(scoring)
    if key == "auto":
        pairwise = "opponent" in table.data
        return "accuracy" if table.label_kind == "categorical" or pairwise else "neg_rmse"
    if key not in ("accuracy", "neg_rmse"):
        raise OptionError(f"unknown scoring {scoring!r}; use accuracy, neg_rmse or auto")
    if key == "neg_rmse" and table.label_kind == "categorical":
        raise OptionError("--scoring neg_rmse needs numeric labels, these are categories; use accuracy")
    return key


def _one_criterion(
    part: LabelView, eps: float, q: float, method, min_items: int
) -> tuple[pd.DataFrame, pd.DataFrame, list[str], Indicators]:
    labels = part.labels()
    human_rows = labels[labels["rater_kind"] == "human"]
    judge_rows = labels[labels["rater_kind"] == "judge"]
    where = f"{part.source}: " if part.source else ""
    notes: list[str] = []
    per_item = human_rows.groupby("item", sort=False)["annotator"].size()
    items = per_item.index[per_item >= 2]
    if len(items) == 0:
        raise RatingsError(
            f"{where}every item has a single human label; the alt-test compares a judge with the other "
            "humans on each item and needs at least two humans per item"
        )
    if len(items) < len(per_item):
        notes.append(
            f"{len(per_item) - len(items)} of {len(per_item)} items have a single human label and are "
            "left out (the test compares with the other humans on each item)"
        )
    human_names = sorted(human_rows["annotator"].unique())
    judge_names = sorted(judge_rows["annotator"].unique())
    items = pd.Index(sorted(items))
    H = _matrix(human_rows, items, human_names)
    J = _matrix(judge_rows, items, judge_names)
    _check_alignment(J, judge_rows, where)
    present = H.notna().to_numpy()
    if callable(method):
        judge_ok, human_ok = _indicators_callable(H, J, method)
    else:
        judge_ok, human_ok = _indicators(H, J, method)
    # judge_ok, human_ok: items × humans × judges booleans, meaningful where present
    n = present.sum(axis=0)  # items per human
    tested = n >= min_items
    if not tested.any():
        raise InsufficientDataError(
            f"{where}no human has {min_items} items with another human's label (most: {int(n.max())}); "
            f"the authors need at least {min_items} per human for the t-test: annotate more items"
        )
    left_out = [h for h, ok in zip(human_names, tested, strict=True) if not ok]
    if left_out:
        notes.append(
            f"{len(left_out)} human(s) with fewer than {min_items} items left out of the t-tests "
            f"({', '.join(left_out[:5])}); the authors recommend at least {min_items} items per annotator "
            "(or a Wilcoxon test) — annotate more items"
        )
    humans_per_item = present.sum(axis=1)
    if np.median(humans_per_item) < RECOMMENDED_HUMANS:
        notes.append(
            f"most items have fewer than {RECOMMENDED_HUMANS} human labels (median "
            f"{np.median(humans_per_item):g}); the authors recommend at least three annotators: with two, "
            "the test only asks which of two people the judge is closer to"
        )
    rho_h, rho_human, t, p, constant = per_human(present, judge_ok, human_ok, eps)
    arrays = Indicators(present[:, tested], judge_ok[:, tested], human_ok[:, tested], tuple(judge_names))
    summary, detail = [], []
    for j, judge in enumerate(judge_names):
        pj = p[tested, j]
        rejected, adjusted, _, _ = multipletests(pj, alpha=q, method="fdr_by")
        omega = float(np.mean(rejected))
        summary.append(
            {
                "judge": judge,
                "winning_rate": omega,
                "advantage_probability": float(np.mean(rho_h[tested, j])),
                "passed": bool(omega >= 0.5),
                "n_items": len(items),
                "n_humans": int(tested.sum()),
            }
        )
        for k, h in enumerate(np.flatnonzero(tested)):
            detail.append(
                {
                    "judge": judge,
                    "human": human_names[h],
                    "n_items": int(n[h]),
                    "advantage_probability": float(rho_h[h, j]),
                    "human_advantage_probability": float(rho_human[h, j]),
                    "statistic": float(t[h, j]) if not constant[h, j] else math.nan,
                    "p_value": float(p[h, j]),
                    "p_adjusted": float(adjusted[k]),
                    "judge_wins": bool(rejected[k]),
                }
            )
    return pd.DataFrame(summary), pd.DataFrame(detail), notes, arrays


@dataclass(frozen=True)
class Indicators:
    """The alt-test's items × tested humans (× judges) arrays, for resampling the verdict."""

    present: np.ndarray
    judge_ok: np.ndarray
    human_ok: np.ndarray
    judges: tuple[str, ...]


def per_human(
    present: np.ndarray, judge_ok: np.ndarray, human_ok: np.ndarray, eps: float
) -> tuple[np.ndarray, ...]:
    """Per human and judge: ρ (judge), ρ (human), the t-statistic, its p-value and whether constant."""
    w = present[:, :, None].astype(float)
    d = (human_ok.astype(float) - judge_ok.astype(float)) * w
    nn = present.sum(axis=0)[:, None].astype(float)
    mean = d.sum(axis=0) / nn
    var = ((d - mean[None]) ** 2 * w).sum(axis=0) / np.maximum(nn - 1, 1)
    rho_h = (judge_ok * w).sum(axis=0) / nn
    rho_human = (human_ok * w).sum(axis=0) / nn
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - eps) / np.sqrt(var / nn)
        p = stats.t.cdf(t, nn - 1)
    # no spread (every item the same indicator): the mean is exact, below ε or not
    constant = var <= 1e-15
    p = np.where(constant, np.where(mean < eps, 0.0, 1.0), p)
    return rho_h, rho_human, t, p, constant


def _check_alignment(J: pd.DataFrame, judge_rows: pd.DataFrame, where: str) -> None:
    """Every judge labels every item with two or more human labels; say how many and which it lacks."""
    items = J.index
    for judge in J.columns:
        missing = items[J[judge].isna().to_numpy()]
        if len(missing) == len(items):
            have = judge_rows.loc[judge_rows["annotator"] == judge, "item"].unique()
            raise RatingsError(
                f"{where}judge {judge!r} labels none of the {len(items)} items with two or more human labels "
                f"(its items look like {', '.join(map(repr, have[:2]))}; the humans' like "
                f"{', '.join(map(repr, items[:2]))}); the item ids must match"
            )
        if len(missing):
            shown = ", ".join(map(str, missing[:3])) + (
                f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            )
            raise RatingsError(
                f"{where}judge {judge!r} has no label for {len(missing)} of the {len(items)} items with two "
                f"or more human labels ({shown}); label them, or drop them from the human labels"
            )


def _matrix(rows: pd.DataFrame, items: pd.Index, names: list[str]) -> pd.DataFrame:
    """Items × annotators labels (NaN where missing), built from integer codes rather than a pivot."""
    row = items.get_indexer(rows["item"])
    col = pd.Index(names).get_indexer(rows["annotator"])
    keep = row >= 0
    labels = rows["label"].to_numpy()
    numeric = np.issubdtype(labels.dtype, np.number)
    out = np.full((len(items), len(names)), np.nan if numeric else None, dtype=float if numeric else object)
    out[row[keep], col[keep]] = labels[keep]
    return pd.DataFrame(out, index=items, columns=names)


def _indicators(H: pd.DataFrame, J: pd.DataFrame, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Judge-at-least-as-good and human-at-least-as-good indicators, items × humans × judges."""
    present = H.notna().to_numpy()
    m = present.sum(axis=1, keepdims=True)[:, :, None].astype(float)  # humans per item
    if method == "accuracy":
        uniques = pd.unique(pd.concat([H.stack(), J.stack()]).dropna())
        h = np.column_stack([pd.Categorical(H[c], categories=uniques).codes for c in H])
        j = np.column_stack([pd.Categorical(J[c], categories=uniques).codes for c in J])
        counts = np.zeros((len(H), len(uniques) + 1))  # the last column counts missing labels
        np.add.at(counts, (np.repeat(np.arange(len(H)), h.shape[1]), h.ravel()), 1)
        human_hits = np.take_along_axis(counts, h, axis=1) - 1  # the others agreeing with the human
        judge_counts = np.take_along_axis(counts, j, axis=1)  # items × judges
        judge_hits = judge_counts[:, None, :] - (h[:, :, None] == j[:, None, :])
        human_score = human_hits[:, :, None] / (m - 1)
        judge_score = judge_hits / (m - 1)
    else:
        h = H.to_numpy(dtype=float)
        j = J.to_numpy(dtype=float)
        filled = np.where(present, h, 0.0)
        s1 = filled.sum(axis=1, keepdims=True)
        s2 = (filled**2).sum(axis=1, keepdims=True)
        mm = m[:, :, 0]
        # sums of squared differences to the other humans: all humans minus the left-out one
        human_sse = mm * filled**2 - 2 * filled * s1 + s2
        judge_all = mm * j**2 - 2 * j * s1 + s2  # items × judges
        judge_sse = judge_all[:, None, :] - (j[:, None, :] - filled[:, :, None]) ** 2
        human_score = -np.sqrt(np.maximum(human_sse, 0)[:, :, None] / (m - 1))
        judge_score = -np.sqrt(np.maximum(judge_sse, 0) / (m - 1))
    tie = np.isclose(judge_score, human_score, rtol=1e-12, atol=1e-12)
    return (judge_score > human_score) | tie, (human_score > judge_score) | tie


def _indicators_callable(H: pd.DataFrame, J: pd.DataFrame, f) -> tuple[np.ndarray, np.ndarray]:
    """The same indicators with a user's scoring function (one call per item, human and judge)."""
    h = H.to_numpy(dtype=object)
    j = J.to_numpy(dtype=object)
    present = H.notna().to_numpy()
    shape = (h.shape[0], h.shape[1], j.shape[1])
    judge_ok = np.zeros(shape, dtype=bool)
    human_ok = np.zeros(shape, dtype=bool)
    for i in range(h.shape[0]):
        for a in np.flatnonzero(present[i]):
            others = np.array([h[i, b] for b in np.flatnonzero(present[i]) if b != a])
            human_score = float(f(h[i, a], others))
            for k in range(j.shape[1]):
                judge_score = float(f(j[i, k], others))
                judge_ok[i, a, k] = judge_score >= human_score
                human_ok[i, a, k] = human_score >= judge_score
    return judge_ok, human_ok


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for row in frame.to_dict(orient="records"):
        out.append({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()})
    return out
