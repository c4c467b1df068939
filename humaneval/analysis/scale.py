"""What ``analyze`` adds for a CLMM with scale effects: ζ, σ_s and the LR test of scale use.

docs/analysis.md, "Annotators who use the scale differently".
"""

from __future__ import annotations

from collections.abc import Mapping

from humaneval.clmm.result import FitResult
from humaneval.clmm.scale import scale_lr_test
from humaneval.present.formatting import p_is


def scale_extra(fit: FitResult) -> dict[str, object]:
    """``scale_effects`` [{term, estimate, se}], ``scale_sd`` and ``scale_test`` of a scale fit.

    ``scale_test`` is the likelihood-ratio test "does scale use differ between annotators?": the
    fit against the same location model without scale effects (:func:`~humaneval.clmm.scale.scale_lr_test`).
    """
    if fit.scale is None:
        return {}
    return {**fit.scale.to_dict(), "scale_test": scale_lr_test(fit).to_dict()}


def scale_lines(extra: Mapping[str, object] | None) -> list[str]:
    """The scale part of ``humaneval analyze``'s text output (empty without scale effects)."""
    extra = extra or {}
    test = extra.get("scale_test")
    if not isinstance(test, Mapping):
        return []
    lines = [""]
    effects = extra.get("scale_effects") or []
    if isinstance(effects, list) and effects:
        lines.append(f"scale effects (log spread vs the reference; {len(effects)} terms)")
        for row in effects:
            lines.append(f"  {row['term']:<26} {row['estimate']:>9.4f} {row['se']:>7.4f}")
    sd = extra.get("scale_sd")
    if isinstance(sd, Mapping):
        lines.append(f"random log-scale SD of {sd['factor']}: {sd['estimate']:.4f} (SE {sd['se']:.4f})")
    boundary = " (σ on its boundary: χ² mixture)" if test["boundary"] else ""
    lines.append(
        f"does scale use differ between annotators? LR χ²({test['df']}) = {test['statistic']:.3f}, "
        f"{p_is(test['p'])}{boundary}"
    )
    return lines
