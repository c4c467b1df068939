"""A simulation model from pilot ratings: fit the CLMM, keep what the simulator needs, say what it took.

:func:`pilot_model` is the one place a pilot becomes a model (thresholds, fixed effects and the
random-effect covariances of the fit, via ``FitResult.to_model``), so a model formula can be
passed through to the fitter when it supports one.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from humaneval.analysis.fit import fit_clmm
from humaneval.clmm.model import OrdinalModel
from humaneval.clmm.result import FitResult
from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import ConvergenceWarning, DesignError
from humaneval.present.document import Block, Bullets, Paragraph, Text
from humaneval.present.formatting import fmt
from humaneval.present.printable import Printable


@dataclass(frozen=True, eq=False)
class PilotModel(Printable):
    """The model simulated from a pilot and the fit it came from."""

    model: OrdinalModel
    fit: FitResult
    n_annotators: int
    n_documents: int
    fit_warnings: tuple[str, ...] = ()

    def blocks(self) -> tuple[Block, ...]:
        """What was taken from the pilot: the fit, its thresholds, effects and random-effect SDs."""
        fit = self.fit
        rungs = f", after {len(fit.fallbacks)} failed rung(s)" if fit.fallbacks else ""
        items: list[Text] = [
            (f"thresholds ({len(fit.thresholds)}): " + ", ".join(fmt(t) for t in fit.thresholds),),
            (
                f"effects vs {fit.reference}: "
                + ", ".join(
                    f"{s} {b:+.3f} (SE {fmt(se)})"
                    for s, b, se in zip(fit.systems[1:], fit.beta, fit.se, strict=True)
                ),
            ),
        ]
        for factor, psi in fit.random_effects.items():
            sd = np.sqrt(np.clip(np.diag(psi), 0, None))
            kind = "intercept" if psi.shape[0] == 1 else f"{psi.shape[0]}×{psi.shape[0]} covariance, SDs"
            items.append((f"{factor}: {kind} " + ", ".join(fmt(v) for v in sd),))
        items += [(f"warning: {w}",) for w in self.fit_warnings]
        return (
            Paragraph(
                (
                    f"pilot: {fit.nobs} ratings, {self.n_annotators} annotators, "
                    f"{self.n_documents} documents, {fit.structure} CLMM "
                    f"({fit.engine} engine, {fit.link} link){rungs}",
                )
            ),
            Bullets(tuple(items)),
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "structure": self.fit.structure,
            "engine": self.fit.engine,
            "nobs": self.fit.nobs,
            "n_annotators": self.n_annotators,
            "n_documents": self.n_documents,
            "fallbacks": [a.structure for a in self.fit.fallbacks],
            "warnings": list(self.fit_warnings),
            "model": self.model.to_dict(),
        }


def pilot_model(
    ratings: Ratings | pd.DataFrame,
    structure: str = "auto",
    formula: str | None = None,
    engine: str = "native",
    criterion: str | None = None,
    reference: str | None = None,
) -> PilotModel:
    """Fit the CLMM to pilot ratings and return the model to simulate from.

    Parameters
    ----------
    ratings:
        The pilot's ratings table (scores; one criterion or pick one with ``criterion``).
    structure:
        Random-effect structure (``auto``: maximal, nested for nested pilots); the fallback
        ladder applies and the summary says which rung was used.
    formula:
        A model formula, passed to the fitter when it accepts one.
    engine:
        CLMM engine (the native engine by default).

    Returns
    -------
    PilotModel
        ``model`` (thresholds, β and Ψ of the fit) and ``summary()`` of what was taken.

    Examples
    --------
    The wine data as a pilot (:func:`humaneval.io.datasets.wine_ratings`):

    >>> import warnings
    >>> from humaneval.io.datasets import wine_ratings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the document intercept is estimated at 0
    ...     pilot = pilot_model(wine_ratings(), structure="intercepts")
    >>> for line in pilot.summary().splitlines()[:4]:
    ...     print(line)
    pilot: 72 ratings, 9 annotators, 2 documents, intercepts CLMM (native engine, logit link)
    <BLANKLINE>
    - thresholds (4): -1.663, 1.444, 4.169, 6.044
    - effects vs cold-no: cold-yes +1.717 (SE 0.702), warm-no +2.947 (SE 0.761), warm-yes +4.896 (SE 0.886)
    """
    table = as_ratings(ratings)
    if table.response != "score":
        raise DesignError("a pilot for power simulation must hold scores (ratings), not ranks")
    options: dict[str, Any] = {}
    if formula is not None:
        if "formula" not in inspect.signature(fit_clmm).parameters:
            raise DesignError("--formula needs the general CLMM formula engine, which this version lacks")
        options["formula"] = formula
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        fit = fit_clmm(
            table, engine=engine, structure=structure, reference=reference, criterion=criterion, **options
        )
    data = table.without_checks().data
    if criterion is not None and "criterion" in data:
        data = data[data["criterion"] == criterion]
    levels = fit.levels
    if levels != tuple(float(v) for v in range(int(levels[0]), int(levels[-1]) + 1)):
        raise DesignError(
            f"the pilot's scores {levels} leave scale points unobserved; the simulated scale would lose "
            "them: collect more pilot ratings or give a model with --model"
        )
    messages = tuple(str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning))
    model = fit.to_model()
    return PilotModel(
        model=model,
        fit=fit,
        n_annotators=int(data["annotator"].nunique()),
        n_documents=int(data["document"].nunique()),
        fit_warnings=messages,
    )
