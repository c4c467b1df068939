"""Small published data sets, bundled so that examples and tests reproduce the published numbers
in a plain clone (no download, no external files).

Each function returns a reliability matrix with one row per annotator and one column per unit
(``numpy.nan`` where an annotator did not rate a unit), ready for
``krippendorff_alpha(matrix, level, orient="annotators_x_units")``.

References
----------
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
Communication, University of Pennsylvania.
Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability measure
for coding data. Communication Methods and Measures, 1(1), 77–89.
Randall, J. H. (1989). The analysis of sensory data by generalised linear model. Biometrical
Journal, 31(7), 781–793 (the ``wine`` data of R's ordinal package).
Christensen, R. H. B. (2019). A tutorial on fitting cumulative link mixed models with clmm2 from
the ordinal package.

Examples
--------
>>> krippendorff_2011().shape
(4, 12)
>>> hayes_krippendorff_2007().shape
(5, 40)
>>> binary_example().tolist()[0]
[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "binary_example",
    "hayes_krippendorff_2007",
    "krippendorff_2011",
    "textbook_example",
    "wine",
    "wine_ratings",
]

#: Orientation of every matrix here, as :func:`humaneval.reliability.krippendorff_alpha` names it.
ORIENT = "annotators_x_units"


def _parse(rows: list[str], sep: str | None = " ") -> np.ndarray:
    cells = [row.split(sep) if sep else list(row) for row in rows]
    return np.array([[np.nan if c == "." else float(c) for c in row] for row in cells])


def krippendorff_2011() -> np.ndarray:
    """Krippendorff's (2011) worked example: 4 observers × 12 units, values 1–5, with gaps.

    Published α: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.

    Examples
    --------
    >>> from humaneval.reliability import krippendorff_alpha
    >>> data = krippendorff_2011()
    >>> [round(krippendorff_alpha(data, level, orient=ORIENT).alpha, 3)
    ...  for level in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    """
    return _parse(
        [
            "1 2 3 3 2 1 4 1 2 . . .",
            "1 2 3 3 2 2 4 1 2 5 . .",
            ". 3 3 3 2 3 4 2 2 5 1 3",
            "1 2 3 3 2 4 4 1 2 5 1 .",
        ]
    )


def textbook_example() -> np.ndarray:
    """Krippendorff's textbook example of 3 observers × 15 units with many gaps.

    Published α: nominal 0.691, interval 0.811.

    Examples
    --------
    >>> from humaneval.reliability import krippendorff_alpha
    >>> round(krippendorff_alpha(textbook_example(), "nominal", orient=ORIENT).alpha, 3)
    0.691
    >>> round(krippendorff_alpha(textbook_example(), "interval", orient=ORIENT).alpha, 3)
    0.811
    """
    return _parse(
        [
            ". . . . . 3 4 1 2 1 1 3 3 . 3",
            "1 . 2 1 3 3 4 3 . . . . . . .",
            ". . 2 1 3 4 4 . 2 1 1 3 3 . 4",
        ]
    )


def binary_example() -> np.ndarray:
    """Krippendorff's binary example: 2 coders × 10 units, values 0/1, no gaps.

    Published: nominal α 0.095, observed agreement 0.6, Cohen's κ 0.0909, Scott's π 0.0476.

    Examples
    --------
    >>> from humaneval.reliability import cohen_kappa, krippendorff_alpha, observed_agreement, scott_pi
    >>> a, b = binary_example()
    >>> round(krippendorff_alpha(binary_example(), "nominal", orient=ORIENT).alpha, 3)
    0.095
    >>> observed_agreement(a, b), round(cohen_kappa(a, b), 4), round(scott_pi(a, b), 4)
    (0.6, 0.0909, 0.0476)
    """
    return _parse(["0100000010", "1110010000"], sep=None)


def hayes_krippendorff_2007() -> np.ndarray:
    """Hayes & Krippendorff (2007), Table 1: 5 observers × 40 units, values 0–3, with gaps.

    Published α: nominal 0.4765, ordinal 0.7598, interval 0.7574.

    Examples
    --------
    >>> from humaneval.reliability import krippendorff_alpha
    >>> data = hayes_krippendorff_2007()
    >>> [round(krippendorff_alpha(data, level, orient=ORIENT).alpha, 4)
    ...  for level in ("nominal", "ordinal", "interval")]
    [0.4765, 0.7598, 0.7574]
    """
    return _parse(
        [
            "112.001122.01311211000201001111223222221",
            "1130000.21102311121000302102111122222221",
            "203000222100221123001.30.1012202.2232.21",
            ".13....0.10022...31.103021122..122...12.",
            "2..0001.2....3112..0.0..2.0..20.2.2222.1",
        ],
        sep=None,
    )


#: Randall's (1989) bitterness ratings, judge by judge (9 judges × bottles 1–8).
_WINE_RATINGS = "233444551213235423325544323232532343333332322454112223232223333412323244"
_WINE_RESPONSE = (
    "36 48 47 67 77 60 83 90 17 22 14 50 30 51 90 70 36 50 42 23 80 81 73 62 46 27 48 32 57 37 84 58 "
    "26 45 61 41 48 41 58 55 46 30 54 37 32 60 88 73 13 19 31 29 22 43 32 49 25 32 39 40 51 45 42 67 "
    "12 29 47 28 47 38 72 65"
)


def wine() -> pd.DataFrame:
    """Randall's (1989) wine data: 9 judges rate the bitterness of 8 wines (1–5) made at two
    temperatures (``temp``) with or without skin contact (``contact``); ``response`` is the
    underlying 0–100 score.

    The CLMM ``rating ~ temp + contact + (1|judge)`` has logLik −81.57, AIC 177.13 and
    coefficients tempwarm 3.063, contactyes 1.835 (Christensen 2019).

    Examples
    --------
    >>> from humaneval.analysis import fit_clmm
    >>> fit = fit_clmm(wine(), formula="rating ~ temp + contact + (1|judge)")
    >>> round(fit.loglik, 2), round(fit.aic, 2)
    (-81.57, 177.13)
    >>> fit.fixed_effects().set_index("term")["estimate"].round(3).to_dict()
    {'tempwarm': 3.063, 'contactyes': 1.835}
    """
    bottle = np.tile(np.arange(1, 9), 9)
    return pd.DataFrame(
        {
            "response": [int(v) for v in _WINE_RESPONSE.split()],
            "rating": [int(c) for c in _WINE_RATINGS],
            "temp": np.where(bottle <= 4, "cold", "warm"),
            "contact": np.where((bottle - 1) % 4 >= 2, "yes", "no"),
            "bottle": bottle,
            "judge": np.repeat(np.arange(1, 10), 8),
        }
    )


def wine_ratings() -> pd.DataFrame:
    """Randall's wine data as a ratings table: the four ``temp``-``contact`` conditions are the
    systems (``cold-no``, ``cold-yes``, ``warm-no``, ``warm-yes``), each judge an annotator, and the
    two bottles of a condition documents ``1`` and ``2``: 9 annotators × 2 documents × 4 systems
    = 72 ratings on 1–5 (higher = more bitter).

    Examples
    --------
    >>> table = wine_ratings()
    >>> table.shape, list(table.columns)
    ((72, 4), ['annotator', 'document', 'system', 'score'])
    >>> table.groupby("system")["score"].mean().round(3).to_dict()
    {'cold-no': 2.056, 'cold-yes': 2.611, 'warm-no': 3.111, 'warm-yes': 3.889}
    """
    data = wine()
    return pd.DataFrame(
        {
            "annotator": data["judge"].astype(str),
            "document": ((data["bottle"] - 1) % 2 + 1).astype(str),
            "system": data["temp"] + "-" + data["contact"],
            "score": data["rating"],
        }
    )
