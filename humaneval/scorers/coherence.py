"""Entity-graph coherence and the sentence-shuffle test (dissertation ch. 4).

Entity graph (Guinaudeau & Strube 2013): from an entity grid — per sentence t a map entity → role
in {S, O, X}, keeping the highest role S > O > X when an entity recurs in a sentence — with
w(S) = 3, w(O) = 2, w(X) = 1:

    w(t, u) = (1/(u − t)) · Σ_{e in t and u} w(role_t(e)) · w(role_u(e))     for t < u
    EGR     = (1/n) Σ_{t<u} w(t, u)                                            (average out-degree)

``weights="count"`` uses 1 per shared entity, ``"unweighted"`` 1 per arc; ``distance_discount``
drops the 1/(u − t). A grid of one sentence gives 0.0, none NaN; :func:`entity_graph_coherence` reports
one-sentence texts as NaN (undefined).

Grid builders: ``spacy`` needs a pipeline with a dependency parser — entities are the lowercased
heads of noun chunks (repeated heads stand in for coreference), roles nsubj/nsubjpass/csubj → S,
dobj/obj/dative → O, else X, pronouns excluded. ``lexical`` (the fallback when no parser is
available) takes lowercased alphabetic non-stop-word tokens of length ≥ 3, all with role X; it is
an approximation and the result's ``method`` says so.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from humaneval.core.deprecation import caller_stacklevel
from humaneval.errors import BackendUnavailableError, OptionError, RatingsError
from humaneval.scorers.result import ScoreResult, UndefinedScoreWarning, as_texts, blank_mask, values_of
from humaneval.scorers.text import STOP_WORDS, sentences

ROLE_WEIGHTS = {"S": 3, "O": 2, "X": 1}
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj"})
OBJECT_DEPS = frozenset({"dobj", "obj", "dative"})
Grid = list[dict[str, str]]


def _add(sentence: dict[str, str], entity: str, role: str) -> None:
    """Record ``entity`` with ``role`` unless it already has a higher one in this sentence."""
    if entity not in sentence or ROLE_WEIGHTS[role] > ROLE_WEIGHTS[sentence[entity]]:
        sentence[entity] = role


def entity_graph_score(
    grid: Sequence[Mapping[str, str]], *, weights: str = "syntactic", distance_discount: bool = True
) -> float:
    """EGR of an entity grid (average weighted out-degree of the projection graph).

    Examples
    --------
    "cat" is the subject of both sentences: one arc of weight 3 × 3 over 2 sentences.

    >>> entity_graph_score([{"cat": "S", "mat": "O"}, {"cat": "S"}])
    4.5
    """
    if weights not in ("syntactic", "count", "unweighted"):
        raise OptionError(f"weights {weights!r} is not one of syntactic, count, unweighted")
    n = len(grid)
    if n == 0:
        return float("nan")
    for t, sentence in enumerate(grid):
        bad = {r for r in sentence.values() if r not in ROLE_WEIGHTS}
        if bad:
            raise RatingsError(f"entity grid sentence {t}: roles {sorted(bad)} are not S, O or X")
    total = 0.0
    for t, u in itertools.combinations(range(n), 2):
        shared = grid[t].keys() & grid[u].keys()
        if not shared:
            continue
        if weights == "syntactic":
            arc = sum(ROLE_WEIGHTS[grid[t][e]] * ROLE_WEIGHTS[grid[u][e]] for e in shared)
        elif weights == "count":
            arc = len(shared)
        else:
            arc = 1
        total += arc / (u - t) if distance_discount else arc
    return total / n


def lexical_grid(text: str) -> Grid:
    """The approximate grid: content tokens (alphabetic, not stop words, ≥ 3 letters), role X."""
    grid = []
    for sentence in sentences(text):
        tokens = (w.lower() for w in sentence.replace("'", " ").split())
        cells: dict[str, str] = {}
        for token in tokens:
            token = "".join(ch for ch in token if ch.isalpha())
            if len(token) >= 3 and token not in STOP_WORDS:
                cells[token] = "X"
        grid.append(cells)
    return grid


def spacy_grid(doc: Any) -> Grid:
    """The dependency-role grid of a parsed spaCy ``Doc`` (noun-chunk heads, pronouns excluded)."""
    if not doc.has_annotation("DEP"):
        raise BackendUnavailableError(
            "the spacy grid builder needs a pipeline with a dependency parser; use builder='lexical'"
        )
    grid = []
    for sent in doc.sents:
        cells: dict[str, str] = {}
        for chunk in sent.noun_chunks:
            head = chunk.root
            if head.pos_ == "PRON":
                continue
            dep = head.dep_
            role = "S" if dep in SUBJECT_DEPS else "O" if dep in OBJECT_DEPS else "X"
            _add(cells, head.text.lower(), role)
        grid.append(cells)
    return grid


def _builder(builder: str, nlp: Any) -> tuple[Callable[[str], Grid], str]:
    if builder == "lexical":
        return lexical_grid, "lexical-approximation"
    if isinstance(nlp, str):
        from humaneval.scorers.ner import load_spacy

        nlp = load_spacy(nlp)
    has_parser = nlp is not None and "parser" in getattr(nlp, "pipe_names", ("parser",))
    if builder == "auto":
        if not has_parser:
            return lexical_grid, "lexical-approximation"
        builder = "spacy"
    if builder == "spacy":
        if nlp is None:
            raise BackendUnavailableError("builder='spacy' needs nlp=<a spaCy pipeline with a parser>")
        return (lambda text: spacy_grid(nlp(text))), "spacy-dependency"
    raise OptionError(f"builder {builder!r} is not one of auto, spacy, lexical")


def entity_graph_coherence(
    texts: Sequence[str],
    *,
    builder: str = "auto",
    nlp: Any = None,
    weights: str = "syntactic",
    distance_discount: bool = True,
) -> ScoreResult:
    """EGR of every text. ``builder="auto"`` uses spaCy roles when ``nlp`` (a pipeline or an installed
    package name such as ``en_core_web_sm``) has a parser, the lexical approximation otherwise;
    ``method`` names the grid.

    A text of one sentence has no sentence pairs, so its coherence is undefined: NaN, counted in
    ``meta["n_single_sentence"]`` and warned about (an EGR of 0 would read as "incoherent").

    Parameters
    ----------
    texts : sequence of str
        The summaries.
    builder : {"auto", "spacy", "lexical"}
        How the entity grid is built.
    nlp : spaCy pipeline or str, optional
        A pipeline with a parser, or an installed package name.
    weights : {"syntactic", "count", "unweighted"}
        Arc weights of the projection graph (S = 3, O = 2, X = 1 for ``syntactic``).
    distance_discount : bool
        Divide each arc by the sentence distance.

    Returns
    -------
    ScoreResult
        One EGR per text; ``method`` names the grid builder.

    Raises
    ------
    OptionError
        An unknown builder.
    BackendUnavailableError
        ``builder="spacy"`` without a usable pipeline.

    References
    ----------
    Guinaudeau, C., & Strube, M. (2013). Graph-based local coherence modeling. ACL 2013.

    Examples
    --------
    With the lexical grid (role X everywhere) the arcs are 2 (cat, mat) + 1/2 (cat, two sentences
    apart) + 1 (cat) over 3 sentences:

    >>> text = "The cat sat on the mat. The cat liked the mat. Then the cat slept."
    >>> result = entity_graph_coherence([text], builder="lexical")
    >>> round(float(result.values[0]), 4), round(3.5 / 3, 4)
    (1.1667, 1.1667)
    """
    items = as_texts(texts, "texts")
    build, grid_name = _builder(builder, nlp)
    blank = blank_mask(items)
    values = np.full(len(items), np.nan)
    n_unlinked = n_single = 0
    for i in np.flatnonzero(~blank):
        grid = build(items[i])
        if len(grid) < 2:
            n_single += 1
            continue
        values[i] = entity_graph_score(grid, weights=weights, distance_discount=distance_discount)
        n_unlinked += values[i] == 0
    if n_single:
        warnings.warn(
            f"{n_single} of {len(items)} texts have a single sentence: entity-graph coherence is undefined "
            "for them (NaN)",
            UndefinedScoreWarning,
            stacklevel=caller_stacklevel(),
        )
    return ScoreResult(
        values,
        f"entity-graph(grid={grid_name}, weights={weights}, discount={'on' if distance_discount else 'off'})",
        {
            "n_empty": int(blank.sum()),
            "n_single_sentence": n_single,
            "n_zero": int(n_unlinked),
            "grid": grid_name,
        },
    )


@dataclass(frozen=True)
class ShuffleTestResult:
    """Share of (original, shuffled) pairs where the original scored higher; ties count ½."""

    accuracy: float
    n_texts: int
    n_pairs: int
    n_skipped: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def shuffled_orders(n: int, k: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Up to ``k`` sentence orders different from the original; distinct draws from all n! − 1
    when n ≤ 6, independent random permutations otherwise."""
    identity = tuple(range(n))
    if n <= 6:
        eligible = [p for p in itertools.permutations(range(n)) if p != identity]
        picks = rng.choice(len(eligible), size=min(k, len(eligible)), replace=False)
        return [eligible[i] for i in sorted(picks)]
    orders: list[tuple[int, ...]] = []
    while len(orders) < k:
        order = tuple(int(i) for i in rng.permutation(n))
        if order != identity:
            orders.append(order)
    return orders


def shuffle_test(
    score: Callable[[list[str]], ScoreResult | Sequence[float]],
    texts: Sequence[str],
    *,
    k: int = 20,
    seed: int | np.random.Generator | None = None,
) -> ShuffleTestResult:
    """Shuffle-test accuracy P(score(original) > score(shuffled)) of a batch scorer.

    Texts with fewer than 2 sentences are skipped (counted); shuffled texts join the permuted
    sentences with single spaces, and so do the originals, so only the order differs.
    """
    rng = np.random.default_rng(seed)
    originals, shuffled, owner = [], [], []
    n_skipped = 0
    for text in as_texts(texts, "texts"):
        sents = sentences(text)
        if len(sents) < 2:
            n_skipped += 1
            continue
        originals.append(" ".join(sents))
        for order in shuffled_orders(len(sents), k, rng):
            shuffled.append(" ".join(sents[i] for i in order))
            owner.append(len(originals) - 1)
    if not originals:
        return ShuffleTestResult(math.nan, 0, 0, n_skipped)

    base = values_of(score(originals))[np.array(owner)]
    other = values_of(score(shuffled))
    wins = np.where(base > other, 1.0, np.where(base == other, 0.5, 0.0))
    valid = ~(np.isnan(base) | np.isnan(other))
    return ShuffleTestResult(
        float(wins[valid].mean()) if valid.any() else math.nan, len(originals), int(valid.sum()), n_skipped
    )
