"""Several criteria in one model: ``score ~ system * criterion + (1 + system | annotator) + (1 | document)``.

A study that rates several criteria of the same summaries by the same annotators is one data set, not
several: the joint model (docs/analysis.md, "Several criteria") lets each criterion have its own system
effects (``system * criterion``) while the annotators' leniency and system preferences are estimated
from all their judgements. :func:`joint_analyses` fits it once and returns one
:class:`~humaneval.analysis.workflow.Analysis` per criterion: the systems compared within the
criterion (estimated marginal means on the latent scale, Tukey within each criterion, as emmeans'
``pairwise ~ system | criterion``), with the criterion's raw means and rank groups. Every criterion's
analysis holds the same joint fit. :func:`~humaneval.analysis.workflow.analyze` (the ``clmm``
adapter), ``humaneval analyze`` and ``humaneval report`` use it for Likert tables with several
criteria, so the three agree.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from humaneval.analysis.adapters import AnalysisOptions
from humaneval.analysis.calibration import clmm_calibration
from humaneval.analysis.workflow import Analysis, _analyze_formula, system_means
from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.ratings import Ratings, select_criterion
from humaneval.core.structure import describe_structure
from humaneval.errors import AnalysisCaution
from humaneval.methods import get_method
from humaneval.stats.grouping import groupings

#: The joint model of several criteria (the response column is filled in).
JOINT_FORMULA = "{response} ~ system * criterion + (1 + system | annotator) + (1 | document)"


def joint_applies(ratings: Ratings, kind: str) -> bool:
    """Whether ``ratings`` get the joint model: a rating-scale table (not ranks) with several criteria."""
    return get_method(kind).rates_items and len(ratings.criteria) > 1


def joint_analyses(ratings: Ratings, options: AnalysisOptions | None = None) -> dict[str | None, Analysis]:
    """The joint model of every criterion, fitted once, as one :class:`Analysis` per criterion.

    Parameters
    ----------
    ratings : Ratings
        A Likert (or slider) table with a ``criterion`` column holding several criteria.
    options : AnalysisOptions, optional
        Engine, link, adjustment and significance level (the structure is the joint formula's).

    Returns
    -------
    dict of str to Analysis
        By criterion: the within-criterion contrasts and rank groups; ``fit`` is the joint fit,
        ``extra["joint_model"]`` its formula.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> table = wine_ratings()
    >>> two = as_ratings(pd.concat([table.assign(criterion="bitterness"),
    ...                             table.assign(criterion="sweetness", score=6 - table["score"])]))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     parts = joint_analyses(two)
    >>> sorted(parts), parts["bitterness"].fit is parts["sweetness"].fit
    (['bitterness', 'sweetness'], True)
    >>> parts["bitterness"].systems["system"].tolist()[0], parts["sweetness"].systems["system"].tolist()[0]
    ('warm-yes', 'cold-no')
    """
    options = options or AnalysisOptions()
    table = ratings.without_checks()
    formula = JOINT_FORMULA.format(response=table.response)
    joint = _analyze_formula(
        table,
        formula,
        engine=options.engine,
        structure="auto",
        link=options.link,
        reference=options.reference,
        adjust=options.adjust or "tukey",
        criterion=None,
        alpha=options.alpha,
        threshold="flexible",
        emm="system",
        by="criterion",
        compare=None,
        progress=options.progress,
    )
    caution = clmm_calibration(describe_structure(table))
    if caution is not None:
        warnings.warn(caution, AnalysisCaution, stacklevel=caller_stacklevel())
    emms, contrasts = joint.emms, joint.contrasts
    assert emms is not None  # emm="system" gives them
    out = {}
    for name in table.criteria:
        mine = contrasts[contrasts["criterion"] == name].drop(columns="criterion").reset_index(drop=True)
        own = emms[emms["criterion"] == name].drop(columns="criterion").reset_index(drop=True)
        latent = own[own["mode"] == "latent"].set_index("system")["emmean"]
        means = system_means(select_criterion(table, name))
        out[name] = replace(
            joint,
            criterion=name,
            kind="likert",
            systems=groupings(means, latent, mine, options.alpha),
            contrasts=mine,
            emms=own,
            by=(),
            cautions=() if caution is None else (caution,),
            extra={**(joint.extra or {}), "joint_model": formula},
        )
    return out
