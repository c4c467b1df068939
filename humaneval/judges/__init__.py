"""Automatic judges (LLM judges, metrics) beside human annotators.

A judge is a rater marked as one (``rater_kind = judge`` or ``--judges NAME,...``); the human
analyses leave judges out (:meth:`humaneval.core.ratings.Ratings.without_checks`). This package reads
judge labels (:mod:`humaneval.judges.data`) and asks whether a judge may replace or join the
annotators.
"""

from humaneval.judges.data import Annotations, from_ratings, load_annotations, read_annotations

__all__ = ["Annotations", "from_ratings", "load_annotations", "read_annotations"]
