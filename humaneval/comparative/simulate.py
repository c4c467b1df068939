"""Simulated comparative studies in which annotators (and documents) have their own preferences.

The utility of system s for annotator a on document d is

    u_ads = θ_s + α_as + δ_ds,     α_as ~ N(0, annotator_sd²),  δ_ds ~ N(0, document_sd²),

and judgements follow the models of :mod:`humaneval.comparative.judgements` on these utilities:
Davidson (Bradley–Terry when ``tie`` = 0) for pairs, MaxDiff for best–worst tuples and
Plackett–Luce for rankings. Studies are laid out like the package's designs: blocks of
``docs_per_block`` documents, each judged by its own ``annotators_per_block`` annotators; every
pair of systems per document (pairwise), ``bws_factor`` × S tuples of ``tuple_size`` summaries per
document (best–worst), or one ranking per document (ranking). The tables have the columns
``humaneval collect`` writes, so :func:`~humaneval.comparative.analyze_comparative` reads them as
they are. :func:`simulate_answers` instead fills in a planned design's forms (MTurk batch results).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from humaneval.design.bws import bws_tuples
from humaneval.errors import DesignError
from humaneval.methods import get_method
from humaneval.stats.seeds import SeedLike


def _strengths(strengths: Sequence[float] | dict[str, float]) -> tuple[list[str], np.ndarray]:
    if isinstance(strengths, dict):
        return list(strengths), np.array(list(strengths.values()), dtype=float)
    values = np.asarray(strengths, dtype=float)
    return [f"s{i}" for i in range(len(values))], values


class _Study:
    """The random effects of one simulated study."""

    def __init__(
        self, strengths, blocks, docs_per_block, annotators_per_block, annotator_sd, document_sd, rng
    ):
        self.names, self.theta = _strengths(strengths)
        self.rng = rng
        n_sys = len(self.names)
        self.layout = [
            (
                b,
                [f"d{b * docs_per_block + i:03d}" for i in range(docs_per_block)],
                [f"a{b * annotators_per_block + k:03d}" for k in range(annotators_per_block)],
            )
            for b in range(blocks)
        ]
        n_ann, n_doc = blocks * annotators_per_block, blocks * docs_per_block
        self.alpha = rng.normal(0.0, annotator_sd, size=(n_ann, n_sys))
        self.delta = rng.normal(0.0, document_sd, size=(n_doc, n_sys))

    def utility(self, annotator: str, document: str) -> np.ndarray:
        return self.theta + self.alpha[int(annotator[1:])] + self.delta[int(document[1:])]


def davidson_probabilities(u_a: float, u_b: float, tie: float = 0.0) -> np.ndarray:
    """(P(a wins), P(b wins), P(tie)) under Davidson's model with ν = ``tie`` (0: Bradley–Terry)."""
    pa, pb = np.exp(u_a), np.exp(u_b)
    weights = np.array([pa, pb, tie * np.sqrt(pa * pb)])
    return weights / weights.sum()


def maxdiff_choice(utilities: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    """(best, worst) entry of a tuple drawn with P(i, j) ∝ exp(u_i − u_j), i ≠ j."""
    k = len(utilities)
    weights = np.exp(utilities[:, None] - utilities[None, :])
    np.fill_diagonal(weights, 0.0)
    flat = rng.choice(k * k, p=(weights / weights.sum()).ravel())
    return divmod(int(flat), k)


def plackett_luce_order(utilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Entries best first, drawn from Plackett–Luce (utilities plus Gumbel noise, sorted)."""
    return np.argsort(-(utilities + rng.gumbel(size=len(utilities))))


def simulate_pairwise_study(
    strengths: Sequence[float] | dict[str, float],
    *,
    blocks: int = 10,
    docs_per_block: int = 5,
    annotators_per_block: int = 3,
    annotator_sd: float = 0.0,
    document_sd: float = 0.0,
    tie: float = 0.0,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """A pairwise table (two rows per comparison, ``opponent``, score 1/0/0.5): every pair per document.

    Examples
    --------
    >>> table = simulate_pairwise_study([0.4, 0.0, -0.4], blocks=2, seed=3)
    >>> len(table), sorted(table.columns)[:3]
    (180, ['annotator', 'block', 'document'])
    """
    rng = np.random.default_rng(seed)
    study = _Study(strengths, blocks, docs_per_block, annotators_per_block, annotator_sd, document_sd, rng)
    rows = []
    pairs = list(combinations(range(len(study.names)), 2))
    for b, docs, annotators in study.layout:
        for a in annotators:
            for d in docs:
                u = study.utility(a, d)
                for i, j in pairs:
                    outcome = rng.choice(3, p=davidson_probabilities(u[i], u[j], tie))
                    score = (1.0, 0.0, 0.5)[outcome]
                    for s, o, v in ((i, j, score), (j, i, 1.0 - score)):
                        rows.append((a, d, study.names[s], study.names[o], v, b))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score", "block"])


def simulate_bws_study(
    strengths: Sequence[float] | dict[str, float],
    *,
    blocks: int = 10,
    docs_per_block: int = 5,
    annotators_per_block: int = 3,
    tuple_size: int = 4,
    bws_factor: float = 2.0,
    annotator_sd: float = 0.0,
    document_sd: float = 0.0,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """A best–worst table (one row per shown summary, ``tuple_id``, score +1/−1/0).

    Each document gets ⌈``bws_factor`` · S⌉ balanced tuples of its S summaries
    (:func:`humaneval.design.bws.bws_tuples`), judged by every annotator of its block.
    """
    rng = np.random.default_rng(seed)
    study = _Study(strengths, blocks, docs_per_block, annotators_per_block, annotator_sd, document_sd, rng)
    if not 2 <= tuple_size < len(study.names):
        raise DesignError(f"tuple_size must be between 2 and {len(study.names) - 1}")
    rows = []
    for b, docs, annotators in study.layout:
        for d in docs:
            tuples = bws_tuples(len(study.names), tuple_size, bws_factor, iterations=20, rng=rng)
            for t, members in enumerate(tuples):
                for a in annotators:
                    u = study.utility(a, d)[members]
                    best, worst = maxdiff_choice(u, rng)
                    for k, m in enumerate(members):
                        score = 1 if k == best else -1 if k == worst else 0
                        rows.append((a, d, f"{d}t{t}", study.names[m], score, b))
    return pd.DataFrame(rows, columns=["annotator", "document", "tuple_id", "system", "score", "block"])


def simulate_ranking_study(
    strengths: Sequence[float] | dict[str, float],
    *,
    blocks: int = 10,
    docs_per_block: int = 5,
    annotators_per_block: int = 3,
    annotator_sd: float = 0.0,
    document_sd: float = 0.0,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """A ranking table (``rank``, 1 = best): every annotator ranks all summaries of each document."""
    rng = np.random.default_rng(seed)
    study = _Study(strengths, blocks, docs_per_block, annotators_per_block, annotator_sd, document_sd, rng)
    rows = []
    for b, docs, annotators in study.layout:
        for a in annotators:
            for d in docs:
                order = plackett_luce_order(study.utility(a, d), rng)
                for rank, m in enumerate(order, start=1):
                    rows.append((a, d, study.names[m], rank, b))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "rank", "block"])


def simulate_answers(
    design: Any,
    strengths: dict[str, float],
    *,
    annotator_sd: float = 0.0,
    tie: float = 0.0,
    seed: SeedLike = None,
    fail_checks: Sequence[str] = (),
) -> pd.DataFrame:
    """MTurk batch results of a pairwise, best–worst or ranking design filled in by simulated annotators.

    Every slot answers its screens from the models above (``strengths`` by system name, annotator ×
    system deviations with SD ``annotator_sd``) and answers attention checks as instructed, except
    the slots in ``fail_checks``. The rows are what :func:`humaneval.collect.parse_mturk_results`
    reads: ``Answer.<field>``, ``Answer.order``, ``Answer.tm_<screen>`` and the identity fields.
    """
    from humaneval.collect.mturk import results_row
    from humaneval.forms.screens import design_frame, design_order, entry_code, index_maps

    rng = np.random.default_rng(seed)
    frame = design_frame(design)
    method = frame["method"].iloc[0]
    if not get_method(method).is_comparative:
        raise DesignError(f"simulate_answers fills in pairwise, bws or rank designs, not {method!r}")
    docs, systems = index_maps(frame, design_order(design))
    design_id = frame["design_id"].iloc[0]
    rows = []
    for k, (slot, part) in enumerate(frame.groupby("annotator_slot", sort=True)):
        taste = {s: strengths[s] + rng.normal(0.0, annotator_sd) for s in strengths}
        part = part.sort_values(["position", "display_pos"])
        screens = list(dict.fromkeys(part["screen_id"]))
        fields: dict[str, object] = {
            "slot": slot,
            "design_id": design_id,
            "form_version": 1,
            "order": ",".join(screens),
        }
        for sid in screens:
            fields[f"tm_{sid}"] = "20.0,20.0,0"
        failing = slot in fail_checks
        for _, screen in part.groupby("screen_id", sort=False):
            fields.update(_screen_answer(method, screen, taste, tie, rng, failing, docs, systems, entry_code))
        rows.append(
            results_row(
                fields,
                assignment_id=f"SIMASSIGN{k:04d}",
                worker_id=f"SIMWORKER{k:04d}",
                hit_id=f"SIMHIT{int(part['block'].iloc[0]):03d}",
                work_time=20 * len(screens),
                inputs={"design_id": design_id, "block_id": int(part["block"].iloc[0])},
            )
        )
    return pd.DataFrame(rows)


def _screen_answer(method, screen, taste, tie, rng, failing, docs, systems, entry_code) -> dict[str, object]:
    entries = list(screen.itertuples(index=False))
    check = [e for e in entries if e.is_check and not e.system]
    real = [e for e in entries if not e.is_check]
    if get_method(method).unit == "document":
        order = plackett_luce_order(np.array([taste[e.system] for e in real]), rng)
        answers: dict[str, object] = {real[m].field: rank for rank, m in enumerate(order, start=1)}
        if check:
            answers[check[0].field] = 1 if failing else int(check[0].check_expected)
        return answers
    if check:
        expected = check[0].check_expected
        wrong = {"A": "B", "B": "A", "best": "worst", "worst": "best"}
        return {check[0].field: wrong.get(expected, "none") if failing else expected}
    if get_method(method).unit == "pair":
        left, right = sorted(entries, key=lambda e: e.display_pos)
        p = davidson_probabilities(taste[left.system], taste[right.system], tie)
        return {left.field: ("A", "B", "tie")[rng.choice(3, p=p)]}
    mixed = len({e.document for e in entries}) > 1
    codes = [entry_code(e, systems, docs, mixed) for e in entries]
    best, worst = maxdiff_choice(np.array([taste[e.system] for e in entries]), rng)
    field = entries[0].field
    return {f"{field}_best": codes[best], f"{field}_worst": codes[worst]}
