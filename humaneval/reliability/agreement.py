"""Chance-corrected agreement: observed agreement, Cohen's κ (weighted too), Scott's π, Fleiss' κ.

docs/reliability.md (dissertation eqs. 3.1–3.7):

- :math:`P_o=\\frac1n\\sum_i\\mathbb 1(R_{i,1}=R_{i,2})` (3.1) and :math:`\\kappa=(P_o-P_e)/(1-P_e)` (3.2);
- Cohen's κ: :math:`P_e=\\frac1{n^2}\\sum_c\\mathrm{cnt}(c,R_{\\bullet,1})\\,\\mathrm{cnt}(c,R_{\\bullet,2})`
  (3.3);
  weighted κ (Cohen 1968): :math:`\\kappa_w=1-\\sum w_{ck}O_{ck}/\\sum w_{ck}E_{ck}` with linear
  :math:`|c-k|` or quadratic :math:`(c-k)^2` disagreement weights;
- Scott's π: pooled marginals :math:`p_c` (3.4), :math:`P_e=\\sum_c p_c^2` (3.5);
- Fleiss' κ: every unit has exactly :math:`a\\ge2` ratings, :math:`P_o` by (3.6), :math:`P_e` by (3.7).

The κ values come from statsmodels (``statsmodels.stats.inter_rater``: ``cohens_kappa`` on the
two coders' contingency table, with the category values as scores for the weighted κ, and
``fleiss_kappa`` on the units × categories counts — which for two coders is Scott's π); this module
prepares the tables and reports :math:`P_o`/:math:`P_e`. A single category (chance agreement 1)
gives NaN with a :class:`~humaneval.errors.ReliabilityWarning`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import pandas as pd
from statsmodels.stats import inter_rater

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.ratings import Ratings
from humaneval.errors import InsufficientDataError, OptionError, RatingsError, ReliabilityWarning
from humaneval.reliability.data import Orient, ReliabilityData, as_reliability_data

Weights = Literal["linear", "quadratic"] | None


@dataclass(frozen=True)
class TwoCoderAgreement:
    """Agreement of two coders on the ``n_units`` units both rated (eqs. 3.1–3.5)."""

    n_units: int
    observed_agreement: float
    cohen_kappa: float
    scott_pi: float
    weighted_kappa: float | None
    weights: str | None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class FleissKappa:
    """Fleiss' κ with its observed (3.6) and expected (3.7) agreement."""

    kappa: float
    P_o: float
    P_e: float
    n_units: int
    ratings_per_unit: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def two_coder_agreement(
    a: Sequence[object] | pd.Series,
    b: Sequence[object] | pd.Series,
    *,
    weights: Weights = None,
    categories: Sequence[object] | None = None,
) -> TwoCoderAgreement:
    """P_o, Cohen's κ, Scott's π and (with ``weights``) weighted κ of two coders.

    ``a`` and ``b`` are aligned by position (or by index for two Series); units either coder
    left missing are ignored. ``categories`` fixes the category set and, for labels, their
    order for weighting; numeric categories are weighted by their values.

    Parameters
    ----------
    a, b : sequence or Series
        The two coders' values.
    weights : {"linear", "quadratic"}, optional
        Also compute weighted κ.
    categories : sequence, optional
        The category set (and order).

    Returns
    -------
    TwoCoderAgreement
        ``n_units``, ``observed_agreement``, ``cohen_kappa``, ``scott_pi``, ``weighted_kappa``.

    Raises
    ------
    OptionError
        Unknown ``weights``.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
    Measurement, 20(1), 37–46. Scott, W. A. (1955). Reliability of content analysis. Public
    Opinion Quarterly, 19(3), 321–325.

    Examples
    --------
    Krippendorff's binary example (published P_o 0.6, κ 0.0909, π 0.0476):

    >>> from humaneval.io.datasets import binary_example
    >>> result = two_coder_agreement(*binary_example())
    >>> result.observed_agreement, round(result.cohen_kappa, 4), round(result.scott_pi, 4)
    (0.6, 0.0909, 0.0476)
    """
    x, y = _paired(a, b)
    cats = _categories(np.concatenate([x, y]), categories)
    index = {c: i for i, c in enumerate(cats)}
    xi = np.array([index[v] for v in x])
    yi = np.array([index[v] for v in y])
    k = len(cats)
    table = np.bincount(xi * k + yi, minlength=k * k).reshape(k, k).astype(float)
    joint = table / len(x)
    row, col = joint.sum(axis=1), joint.sum(axis=0)
    p_o = float(np.trace(joint))
    pooled = (row + col) / 2.0
    per_unit = np.zeros((len(x), k))
    np.add.at(per_unit, (np.arange(len(x)), xi), 1.0)
    np.add.at(per_unit, (np.arange(len(x)), yi), 1.0)
    weighted = None
    if weights is not None:
        if weights not in ("linear", "quadratic"):
            raise OptionError(f"weights={weights!r}; use 'linear', 'quadratic' or None")
        weighted = _kappa(
            float(row @ col),
            lambda: inter_rater.cohens_kappa(table, weights=_points(cats), wt=weights, return_results=False),
        )
    return TwoCoderAgreement(
        n_units=len(x),
        observed_agreement=p_o,
        cohen_kappa=_kappa(float(row @ col), lambda: inter_rater.cohens_kappa(table, return_results=False)),
        scott_pi=_kappa(float(pooled @ pooled), lambda: inter_rater.fleiss_kappa(per_unit, method="fleiss")),
        weighted_kappa=weighted,
        weights=weights,
    )


def observed_agreement(a: Sequence[object] | pd.Series, b: Sequence[object] | pd.Series) -> float:
    """:math:`P_o` (eq. 3.1) on the units both coders rated.

    Examples
    --------
    >>> observed_agreement([1, 2, 3, 3], [1, 2, 3, 1])
    0.75
    """
    x, y = _paired(a, b)
    return float(np.mean(x == y))


def cohen_kappa(
    a: Sequence[object] | pd.Series,
    b: Sequence[object] | pd.Series,
    *,
    weights: Weights = None,
    categories: Sequence[object] | None = None,
) -> float:
    """Cohen's κ (eqs. 3.2–3.3), or weighted κ with ``weights="linear"|"quadratic"``.

    Parameters
    ----------
    a, b : sequence or Series
        The two coders' values, aligned by position (or index).
    weights : {"linear", "quadratic"}, optional
        Weighted κ instead of κ.
    categories : sequence, optional
        The category set (and order, for weighting labels).

    Returns
    -------
    float
        κ = (P_o − P_e)/(1 − P_e) with each coder's own marginals.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
    Measurement, 20(1), 37–46.

    Examples
    --------
    Krippendorff's binary example (published κ = 0.0909):

    >>> from humaneval.io.datasets import binary_example
    >>> a, b = binary_example()
    >>> round(cohen_kappa(a, b), 4)
    0.0909
    >>> cohen_kappa([1, 2, 3, 4], [1, 2, 3, 4], weights="quadratic")
    1.0
    """
    result = two_coder_agreement(a, b, weights=weights, categories=categories)
    if weights is None:
        return result.cohen_kappa
    assert result.weighted_kappa is not None  # computed whenever weights are given
    return result.weighted_kappa


def scott_pi(a: Sequence[object] | pd.Series, b: Sequence[object] | pd.Series) -> float:
    """Scott's π (eqs. 3.2, 3.4–3.5).

    Examples
    --------
    >>> from humaneval.io.datasets import binary_example
    >>> round(scott_pi(*binary_example()), 4)
    0.0476
    """
    return two_coder_agreement(a, b).scott_pi


def fleiss_kappa(
    data: ReliabilityData | Ratings | pd.DataFrame | np.ndarray,
    *,
    unit: Sequence[str] | None = None,
    orient: Orient | None = None,
) -> FleissKappa:
    """Fleiss' κ (eqs. 3.6–3.7); raters may differ between units, but every unit needs the same
    number :math:`a\\ge2` of ratings (otherwise use Krippendorff's α).

    Parameters
    ----------
    data : Ratings, DataFrame, ndarray or ReliabilityData
        As for :func:`krippendorff_alpha`.
    unit : sequence of str, optional
        The columns that identify a unit of a ratings table.
    orient : {"annotators_x_units", "units_x_annotators"}, optional
        Orientation of a matrix.

    Returns
    -------
    FleissKappa
        ``kappa``, ``P_o``, ``P_e`` and ``n_units``.

    Raises
    ------
    RatingsError
        Units with different numbers of ratings, or fewer than 2.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin, 76(5), 378–382.

    Examples
    --------
    With two raters Fleiss' κ equals Scott's π (binary example: 0.0476, P_o = 0.6):

    >>> from humaneval.io.datasets import binary_example
    >>> result = fleiss_kappa(binary_example(), orient="annotators_x_units")
    >>> round(result.kappa, 4), result.P_o, result.n_units
    (0.0476, 0.6, 10)
    """
    rd = as_reliability_data(data, unit=unit, orient=orient)
    m = np.bincount(rd.unit)
    m = m[m > 0]
    if m.min() != m.max() or m[0] < 2:
        raise RatingsError(
            f"Fleiss' κ needs the same number (≥ 2) of ratings per unit, found {m.min()} to {m.max()}; "
            "use Krippendorff's α for unequal or missing ratings"
        )
    a = int(m[0])
    _, codes = np.unique(rd.value, return_inverse=True)
    n_cat = int(codes.max()) + 1
    counts = np.bincount(rd.unit * n_cat + codes.ravel(), minlength=len(m) * n_cat).reshape(-1, n_cat)
    n = counts.shape[0]
    p_o = float(((counts.astype(float) ** 2).sum() - n * a) / (n * a * (a - 1)))
    p_c = counts.sum(axis=0) / (n * a)
    p_e = float(p_c @ p_c)
    kappa = _kappa(p_e, lambda: inter_rater.fleiss_kappa(counts, method="fleiss"))
    return FleissKappa(kappa, p_o, p_e, n, a)


def pairwise_agreement(
    data: ReliabilityData | Ratings | pd.DataFrame,
    *,
    unit: Sequence[str] | None = None,
    weights: Weights = None,
    min_units: int = 2,
) -> pd.DataFrame:
    """Two-coder agreement for every pair of coders sharing at least ``min_units`` units.

    One row per pair: ``coder_a, coder_b, n_units, observed_agreement, cohen_kappa, scott_pi``
    (and ``weighted_kappa``). In a block design only coders of the same block share units.

    Raises
    ------
    RatingsError
        Data without coder identities (value counts).

    Examples
    --------
    The nine wine judges, pair by pair:

    >>> from humaneval.io.datasets import wine_ratings
    >>> table = pairwise_agreement(wine_ratings())
    >>> row = table.iloc[1]
    >>> len(table), row.coder_a, row.coder_b, int(row.n_units), float(row.observed_agreement)
    (36, '1', '3', 8, 0.375)
    """
    rd = as_reliability_data(data, unit=unit)
    if rd.coder is None or rd.coders is None:
        raise RatingsError("value counts carry no coder identities; pairwise agreement needs them")
    wide = pd.DataFrame({"unit": rd.unit, "coder": rd.coder, "value": rd.value}).pivot(
        index="unit", columns="coder", values="value"
    )
    cats = np.unique(rd.value)
    rows = []
    for ca, cb in itertools.combinations(wide.columns, 2):
        both = wide[ca].notna() & wide[cb].notna()
        if both.sum() < min_units:
            continue
        res = two_coder_agreement(
            wide.loc[both, ca].to_numpy(),
            wide.loc[both, cb].to_numpy(),
            weights=weights,
            categories=cats.tolist(),
        )
        rows.append({"coder_a": rd.coders[ca], "coder_b": rd.coders[cb], **res.to_dict()})
    columns = ["coder_a", "coder_b", "n_units", "observed_agreement", "cohen_kappa", "scott_pi"]
    frame = pd.DataFrame(rows, columns=[*columns, "weighted_kappa", "weights"])
    return frame if weights is not None else frame[columns]


def _paired(
    a: Sequence[object] | pd.Series, b: Sequence[object] | pd.Series
) -> tuple[np.ndarray, np.ndarray]:
    """The values of units rated by both coders."""
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        joined = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner")
        x, y = joined["a"].to_numpy(dtype=object), joined["b"].to_numpy(dtype=object)
    else:
        x, y = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
        if x.shape != y.shape or x.ndim != 1:
            raise RatingsError(
                f"the two coders' ratings have shapes {x.shape} and {y.shape}; give one value per unit "
                "for each coder (NaN for missing)"
            )
    both = ~(pd.isna(x) | pd.isna(y))
    if not both.any():
        raise InsufficientDataError("the two coders rated no unit in common")
    x, y = x[both], y[both]
    numeric_x, numeric_y = (
        pd.to_numeric(pd.Series(x), errors="coerce"),
        pd.to_numeric(pd.Series(y), errors="coerce"),
    )
    if numeric_x.notna().all() and numeric_y.notna().all():
        return numeric_x.to_numpy(dtype=float), numeric_y.to_numpy(dtype=float)
    return x.astype(str), y.astype(str)


def _categories(observed: np.ndarray, categories: Sequence[object] | None) -> list[object]:
    found = sorted(set(observed.tolist()))
    if categories is None:
        return found
    cats: list[object]
    if observed.dtype.kind == "f":
        numeric = pd.to_numeric(pd.Series(list(categories), dtype=object), errors="coerce")
        if numeric.isna().any():
            raise RatingsError(
                f"the ratings are numbers but the categories {list(categories)} are not; "
                "give numeric categories"
            )
        cats = numeric.astype(float).tolist()
    else:
        cats = [str(c) for c in categories]
    missing = [v for v in found if v not in set(cats)]
    if missing:
        raise RatingsError(f"value {missing[0]!r} is not among the categories {list(categories)}")
    return cats


def _points(cats: list[object]) -> np.ndarray:
    """Scores of the categories for weighting: their values when numeric, else their order."""
    numeric = all(isinstance(c, float) for c in cats)
    return np.array(cats, dtype=float) if numeric else np.arange(len(cats), dtype=float)


def _kappa(p_e: float, compute) -> float:
    """``compute()`` (statsmodels), or NaN with a warning when chance agreement :math:`P_e` is 1
    (a single category), where κ is undefined."""
    if p_e >= 1.0 - 1e-15:
        warnings.warn(
            "κ is undefined: chance agreement is 1 (a single category)",
            ReliabilityWarning,
            stacklevel=caller_stacklevel(),
        )
        return float("nan")
    return float(compute())
