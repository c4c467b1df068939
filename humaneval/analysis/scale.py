"""What ``analyze`` adds for a CLMM with scale effects: ζ, σ_s and the LR test of scale use.

docs/analysis.md, "Annotators who use the scale differently".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.clmm.fit import fit_spec
from humaneval.clmm.formula import clmm_spec
from humaneval.clmm.result import FitResult
from humaneval.clmm.scale import ScaleTest, scale_lr_test
from humaneval.present.document import Block, Paragraph
from humaneval.present.formatting import fmt, p_is
from humaneval.present.printable import frame_table


def scale_extra(fit: FitResult) -> dict[str, object]:
    """``scale_effects`` [{term, estimate, se}], ``scale_sd`` and ``scale_test`` of a scale fit.

    ``scale_test`` is the likelihood-ratio test "does scale use differ between annotators?": the
    fit against the same location model without scale effects (:func:`~humaneval.clmm.scale.scale_lr_test`).
    """
    if fit.scale is None:
        return {}
    return {**fit.scale.to_dict(), "scale_test": scale_lr_test(fit).to_dict()}


def scale_blocks(extra: Mapping[str, object] | None) -> list[Block]:
    """The scale part of ``humaneval analyze``'s output: ζ per term, σ_s and the LR test of scale use
    (nothing without scale effects)."""
    extra = extra or {}
    test = extra.get("scale_test")
    if not isinstance(test, Mapping):
        return []
    out: list[Block] = []
    effects = extra.get("scale_effects") or []
    if isinstance(effects, list) and effects:
        four = {"term": None, "estimate": lambda v: fmt(v, 4), "se": lambda v: fmt(v, 4)}
        caption = f"scale effects (log spread vs the reference; {len(effects)} terms)"
        out.append(frame_table(pd.DataFrame(effects), four, names={"se": "SE"}, caption=(caption,)))
    sd = extra.get("scale_sd")
    if isinstance(sd, Mapping):
        out.append(
            Paragraph(
                (f"random log-scale SD of {sd['factor']}: {fmt(sd['estimate'], 4)} (SE {fmt(sd['se'], 4)})",)
            )
        )
    boundary = " (σ on its boundary: χ² mixture)" if test["boundary"] else ""
    said = (
        f"does scale use differ between annotators? LR χ²({test['df']}) = {fmt(test['statistic'])}, "
        f"{p_is(test['p'])}{boundary}"
    )
    return [*out, Paragraph((said,))]


@dataclass(frozen=True, eq=False)
class ScaleUse:
    """How the annotators of one criterion use the scale, and whether it matters for the comparison.

    ``groups`` per annotator: location ``shift`` and ``log_spread`` (conditional modes) with their
    conditional SDs; ``sd``/``sd_se`` the SD of the log-spreads; ``test`` the LR test of scale use;
    ``max_change`` the largest change of a system coefficient when scale use is modelled, in standard
    errors of the model without it (both with random annotator and document intercepts), ``term`` that
    coefficient; ``flipped`` the coefficients significant at 5 % (two-sided z) in one model but not the other.
    """

    groups: pd.DataFrame
    sd: float
    sd_se: float
    test: ScaleTest
    max_change: float
    term: str
    flipped: tuple[str, ...] = ()

    def sentence(self) -> str:
        """One sentence for the report: does scale use differ, and does it move the comparison?"""
        spread = np.exp(self.groups["log_spread"])
        differs = "differs" if self.test.p < 0.05 else "does not differ detectably"
        change = f"{self.max_change:.2f}"
        moves = (
            f"changes no system coefficient by more than {change} standard errors"
            if float(change) < 1
            else f"moves {self.term} by {change} standard errors"
        )
        verdict = (
            f"and the significance at 5 % of {', '.join(self.flipped)} changes"
            if self.flipped
            else "and none changes its significance at 5 %"
        )
        return (
            f"Scale use {differs} between annotators (log-spread SD {self.sd:.2f}, spreads "
            f"{spread.min():.2f}–{spread.max():.2f}× the median annotator's; LR test {p_is(self.test.p)}); "
            f"modelling it {moves}, {verdict}."
        )


def scale_use(table: pd.DataFrame, response: str = "score", link: str = "logit") -> ScaleUse:
    """Fit random annotator and document intercepts with and without a random annotator log-scale.

    ``table`` has columns annotator, document, system and ``response`` (one criterion).

    Examples
    --------
    >>> from humaneval.simulate.scale import ScaleDesign, simulate_scale_study
    >>> use = scale_use(simulate_scale_study(ScaleDesign(sd_log_scale=0.6), seed=2))
    >>> use.test.p < 0.05, len(use.groups)
    (True, 30)
    """
    formula = f"{response} ~ system + (1 | annotator) + (1 | document)"
    scaled = fit_spec(clmm_spec(formula, table, scale="~ (1 | annotator)"), link)
    null = fit_spec(clmm_spec(formula, table), link)
    test = scale_lr_test(scaled, link)
    change = np.abs(scaled.beta - null.beta) / null.se
    assert scaled.scale is not None and scaled.scale.groups is not None
    k = int(np.argmax(change))
    significant = [np.abs(f.beta / f.se) > stats.norm.isf(0.025) for f in (scaled, null)]
    flipped = tuple(n for n, a, b in zip(scaled.beta_names, *significant, strict=True) if a != b)
    return ScaleUse(
        groups=scaled.scale.groups,
        sd=float(scaled.scale.sd or 0.0),
        sd_se=float(scaled.scale.sd_se or 0.0),
        test=test,
        max_change=float(change[k]),
        term=scaled.beta_names[k],
        flipped=flipped,
    )
