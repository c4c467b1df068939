"""Humans and a judge together: prediction-powered inference (docs/ppi.md).

When a judge (an LLM or a metric) has scored every summary and humans have rated some of them,
prediction-powered inference (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi & Zrnic 2023)
estimates what the humans would say of all of them: the judge's answer on the whole pool,
corrected by its error on the human-rated part. The estimates are unbiased whatever the judge's
quality, and their intervals are narrower than the humans' alone when the judge tracks them.

- :func:`analyze_ppi` and :func:`ppi_systems` — system means and paired
  differences (closed forms in :mod:`humaneval.ppi.mean`, PPBoot intervals in :mod:`humaneval.ppi.bootstrap`);
- :func:`ppi_pairwise` — Bradley–Terry strengths from human and judge pairwise verdicts (Boyeau et al. 2025);
- :func:`ppi_ordinal` — a proportional-odds system contrast as a prediction-powered M-estimator;
- :func:`choose_documents` — which documents the humans should rate, with inclusion probabilities;
- :func:`ppi_budget` — the cheapest numbers of human and judge ratings for a target interval width.

``analyze(ratings, judge=NAME)`` (:mod:`humaneval.analysis`), ``humaneval analyze --judge NAME`` and
``humaneval ppi`` run the estimator of the table's kind as the ``ppi`` analysis adapter and return a
:class:`JudgedAnalysis` (:mod:`humaneval.ppi.result`), which the report's PPI section shows.
"""

from humaneval.design.judged import STRATEGIES, choose_documents
from humaneval.ppi.budget import PPIBudget, ppi_budget
from humaneval.ppi.items import CLUSTERINGS, judged_items
from humaneval.ppi.judged import analyze_ppi
from humaneval.ppi.mean import MeanEstimate, ipw_mean, ppi_mean
from humaneval.ppi.ordinal import PPIOrdinal, judge_categories, ppi_ordinal
from humaneval.ppi.pairwise import PPIPairwise, ppi_pairwise
from humaneval.ppi.result import JudgedAnalysis, judged_analysis
from humaneval.ppi.systems import PPIAnalysis, ppi_systems

__all__ = [
    "CLUSTERINGS",
    "STRATEGIES",
    "JudgedAnalysis",
    "MeanEstimate",
    "PPIAnalysis",
    "PPIBudget",
    "PPIOrdinal",
    "PPIPairwise",
    "analyze_ppi",
    "choose_documents",
    "ipw_mean",
    "judge_categories",
    "judged_analysis",
    "judged_items",
    "ppi_budget",
    "ppi_mean",
    "ppi_ordinal",
    "ppi_pairwise",
    "ppi_systems",
]
