"""Several criteria in one model: ``score ~ system * criterion + (1 + system | annotator) + (1 | document)``.

A study that rates several criteria of the same summaries by the same annotators is one data set, not
several: the joint model (docs/analysis.md, "Several criteria") lets each criterion have its own system
effects (``system * criterion``) while the annotators' leniency and system preferences are estimated
from all their judgements. :func:`joint_applies` is the one place that decides whether a table gets it;
:func:`joint_analyses` fits it once per table and options (the fit is kept: asking for the next
criterion does not refit) and returns one :class:`~humaneval.analysis.outcome.Analysis` per criterion:
the systems compared within the criterion (estimated marginal means on the latent scale, Tukey within
each criterion, as emmeans' ``pairwise ~ system | criterion``), with the criterion's raw means and rank
groups. Every criterion's analysis holds the same joint fit. :func:`~humaneval.analysis.workflow.analyze`
(the ``clmm`` adapter) asks :func:`joint_applies`; :func:`~humaneval.analysis.criteria.analyze_criteria`,
``humaneval analyze`` and ``humaneval report`` call :func:`~humaneval.analysis.workflow.analyze`, so the
three agree.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import fields, replace

import pandas as pd

from humaneval.analysis.calibration import clmm_calibration
from humaneval.analysis.options import AnalysisOptions
from humaneval.analysis.ordinal import formula_analysis
from humaneval.analysis.outcome import Analysis, system_means
from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.ratings import Ratings, select_criterion
from humaneval.core.structure import describe_structure
from humaneval.errors import AnalysisCaution
from humaneval.methods import get_method
from humaneval.methods.kinds import detect_kind
from humaneval.stats.grouping import groupings

#: The joint model of several criteria (the response column is filled in).
JOINT_FORMULA = "{response} ~ system * criterion + (1 + system | annotator) + (1 | document)"


#: Joint fits kept for the next criterion's ``analyze`` call: a few tables' worth, newest last.
_FITS: OrderedDict[Hashable, tuple[dict[str | None, Analysis], tuple[warnings.WarningMessage, ...]]] = (
    OrderedDict()
)
_KEEP = 4


def joint_applies(ratings: Ratings, kind: str | None = None) -> bool:
    """Whether the CLMM of a criterion of ``ratings`` is the joint model of all its criteria: a
    rating-scale table (not ranks) with several criteria.

    Parameters
    ----------
    ratings : Ratings
        The whole table (every criterion).
    kind : str, optional
        The table kind when the caller knows it (default: the first criterion's).

    Returns
    -------
    bool

    Examples
    --------
    >>> import pandas as pd
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> table = wine_ratings()
    >>> two = as_ratings(pd.concat([table.assign(criterion="bitterness"),
    ...                             table.assign(criterion="sweetness", score=6 - table["score"])]))
    >>> joint_applies(two), joint_applies(as_ratings(table))
    (True, False)
    """
    criteria = ratings.criteria
    if len(criteria) < 2:
        return False
    return get_method(kind or detect_kind(select_criterion(ratings, criteria[0]))).rates_items


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
    key = (_fingerprint(ratings), options.engine, options.link, _frozen(options.reference),
           options.adjust or "tukey", options.alpha)  # fmt: skip
    if key in _FITS:
        _FITS.move_to_end(key)
    else:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = _fit_joint(ratings, options)
        _FITS[key] = (parts, tuple(caught))
        while len(_FITS) > _KEEP:
            _FITS.popitem(last=False)
    parts, said = _FITS[key]
    for w in said:  # the fit's warnings, said on every call as a fresh fit would say them
        warnings.warn(w.message, w.category, stacklevel=caller_stacklevel())
    return {name: _copied(analysis) for name, analysis in parts.items()}


def _fit_joint(ratings: Ratings, options: AnalysisOptions) -> dict[str | None, Analysis]:
    """One fit of the joint model, sliced by criterion."""
    table = ratings.without_checks()
    formula = JOINT_FORMULA.format(response=table.response)
    joint = formula_analysis(
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


def _fingerprint(ratings: Ratings) -> str:
    """A digest of the table's rows and declarations: the same table, even rebuilt from the same frame,
    finds its fit; a changed value does not."""
    digest = hashlib.sha256(pd.util.hash_pandas_object(ratings.data, index=False).to_numpy().tobytes())
    columns = [(str(c), str(t)) for c, t in ratings.data.dtypes.items()]
    declared = [
        (f.name, getattr(ratings, f.name)) for f in fields(ratings) if f.name not in {"data", "source"}
    ]
    digest.update(repr((columns, declared)).encode())
    return digest.hexdigest()


def _frozen(reference: str | Mapping[str, str] | None) -> Hashable:
    return tuple(sorted(reference.items())) if isinstance(reference, Mapping) else reference


def _copied(analysis: Analysis) -> Analysis:
    """The kept analysis with its own tables, so a caller editing them leaves the kept fit as it was."""
    return replace(
        analysis,
        systems=analysis.systems.copy(),
        contrasts=analysis.contrasts.copy(),
        emms=None if analysis.emms is None else analysis.emms.copy(),
    )
