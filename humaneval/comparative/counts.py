"""Pairwise comparisons as win counts: pooled Bradley–Terry from tables of any size, read in chunks.

The pooled Bradley–Terry (or Davidson) likelihood depends on the comparisons only through how often
each system beat each other one and how often they tied, so a table of 10⁷–10⁸ comparisons (an
arena's history) can be read a chunk at a time into an S × S table of counts and fitted from that,
with the memory of one chunk plus a few bytes per comparison. Parquet files are read with pyarrow
(``pip install humaneval[arrow]``: its ``iter_batches`` reads only the columns named, one row group at a
time, and Parquet is how arena histories are published); CSV files with pandas' chunked reader.

A comparison may be written as one row or as two mirror rows (system and opponent swapped, scores
adding up to 1), as everywhere in humaneval: rows are matched by annotator, document (and pair of
systems) through a 64-bit hash of their ids, so the two rows of a comparison count once, wherever
they fall in the file; rows that repeat a comparison (or mirrors that disagree) are refused, as
validation of an in-memory table refuses them. The cost is 17 bytes per row for the keys.

Counts hold no clusters: their inference is the model's (observed information) or the naive
bootstrap of comparisons; annotator and document clusters need the table (``humaneval analyze`` on
the file as a whole).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix

from humaneval.clmm.contrasts import check_adjust
from humaneval.comparative.analyze import MODEL_NAMES, ComparativeAnalysis, analyze_judgements
from humaneval.comparative.engine import check_estimable
from humaneval.comparative.judgements import Judgements
from humaneval.errors import ModelSpecError, OptionError, RatingsError

#: The inference win counts allow: they hold no clusters.
COUNT_INFERENCE = ("model", "naive")

__all__ = [
    "CHUNK_ROWS",
    "PairCounts",
    "analyze_counts",
    "count_pairs",
    "counts_judgements",
    "read_pair_counts",
]

#: Rows read at once from a file (about 100 MB of pandas memory for arena-style ids).
CHUNK_ROWS = 1_000_000
_COLUMNS = ("annotator", "document", "system", "opponent", "score")
_OPTIONAL = ("criterion", "is_check", "rater_kind")


@dataclass(frozen=True)
class PairCounts:
    """Win and tie counts of pairwise comparisons.

    ``wins[i, j]`` is how often ``systems[i]`` beat ``systems[j]``, ``ties[i, j]`` (symmetric) how
    often they tied; ``n_rows`` the rows read (mirror rows included, attention checks and judge rows
    not), ``n_comparisons`` the comparisons they hold.
    """

    systems: tuple[str, ...]
    wins: np.ndarray
    ties: np.ndarray
    n_rows: int
    n_comparisons: int
    criterion: str | None = None


class _Counter:
    """Accumulates chunks: system codes, and per row its comparison key, pair and outcome."""

    def __init__(self, criterion: str | None, lines: bool = False) -> None:
        self.criterion = criterion
        self.lines = lines
        self.criteria: set[str] = set()
        self.names: dict[str, int] = {}
        self.keys: list[np.ndarray] = []
        self.pairs: list[np.ndarray] = []
        self.outcomes: list[np.ndarray] = []
        self.n_rows = 0

    def add(self, chunk: pd.DataFrame, first_row: int, where: str) -> None:
        missing = [c for c in _COLUMNS if c not in chunk]
        if missing:
            raise RatingsError(
                f"{where}: no column {', '.join(missing)}; a pairwise table needs {', '.join(_COLUMNS)}"
            )
        chunk = self._selected(chunk)
        if chunk.empty:
            return
        for column in _COLUMNS[:4]:
            empty = chunk[column].isna().to_numpy()
            if empty.any():
                row = first_row + int(chunk.index[np.argmax(empty)])
                raise RatingsError(f"{where}: empty '{column}' at {self.place(row)}; every row needs an id")
        score = pd.to_numeric(chunk["score"], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isin(score, (0.0, 0.5, 1.0))
        if bad.any():
            at = int(np.argmax(bad))
            row = first_row + int(chunk.index[at])
            raise RatingsError(
                f"{where}: score {_shown(chunk['score'].iloc[at])} at {self.place(row)}; pairwise scores "
                "must be 1 (won), 0 (lost) or 0.5 (tie)"
            )
        system, opponent = self._codes(chunk["system"]), self._codes(chunk["opponent"])
        same = system == opponent
        if same.any():
            row = first_row + int(chunk.index[np.argmax(same)])
            raise RatingsError(
                f"{where}: {self.place(row)} compares a system with itself (system = opponent)"
            )
        first = system < opponent
        a, b = np.where(first, system, opponent), np.where(first, opponent, system)
        won = np.where(first, score, 1.0 - score)  # the score of a, the system that sorts first
        # per row: 0 a won, 1 b won, 2 tie; + 3 when the row is written from b's side
        outcome = np.where(won == 1.0, 0, np.where(won == 0.0, 1, 2)) + 3 * (~first)
        self.keys.append(
            _hash(chunk["annotator"]) ^ _mix(_hash(chunk["document"]) + np.uint64(0x9E3779B97F4A7C15))
        )
        self.pairs.append((a.astype(np.int64) << 32 | b).astype(np.int64))
        self.outcomes.append(outcome.astype(np.int8))
        self.n_rows += len(chunk)

    def place(self, row: int) -> str:
        """How a message names the row at 0-based position ``row``: its line of a CSV file (after the
        header), else its row number from 1."""
        return f"line {row + 2}" if self.lines else f"row {row + 1}"

    def _selected(self, chunk: pd.DataFrame) -> pd.DataFrame:
        """The rows analysed: no attention checks, no judge rows, the one criterion."""
        keep = np.ones(len(chunk), dtype=bool)
        if "is_check" in chunk:
            keep &= ~chunk["is_check"].fillna(False).astype(bool).to_numpy()
        if "rater_kind" in chunk:
            keep &= chunk["rater_kind"].astype(str).str.strip().str.lower().to_numpy() != "judge"
        if "criterion" in chunk:
            criteria = chunk["criterion"].astype(str).str.strip()
            if self.criterion is not None:
                keep &= (criteria == self.criterion).to_numpy()
            else:
                self.criteria |= set(criteria.unique())
                if len(self.criteria) > 1:
                    raise OptionError(
                        f"several criteria ({', '.join(sorted(self.criteria)[:5])}); "
                        "choose one with --criterion"
                    )
        return chunk if keep.all() else chunk[keep]

    def _codes(self, column: pd.Series) -> np.ndarray:
        """Codes of system names in order of first appearance over all chunks (names stripped)."""
        codes, uniques = pd.factorize(column)
        for name in (str(u).strip() for u in uniques):
            self.names.setdefault(name, len(self.names))
        lookup = np.array([self.names[str(u).strip()] for u in uniques], dtype=np.int64)
        return lookup[codes]

    def result(self) -> PairCounts:
        if not self.n_rows:
            raise RatingsError(
                "no pairwise comparisons to count (every row was left out or the table is empty)"
            )
        key, pair = np.concatenate(self.keys), np.concatenate(self.pairs)
        outcome = np.concatenate(self.outcomes)
        self.keys = self.pairs = self.outcomes = []
        key ^= _mix(pair.astype(np.uint64))  # one key per comparison: annotator, document and pair
        order = np.argsort(key, kind="stable")
        key, pair, outcome = key[order], pair[order], outcome[order]
        del order
        start = np.r_[True, key[1:] != key[:-1]]
        if (pair[1:] != pair[:-1])[~start[1:]].any():  # two comparisons share a key: 1 in ~10⁶ at 10⁷ rows
            raise RatingsError("two comparisons have the same 64-bit key; please report this table")
        size = np.diff(np.r_[np.flatnonzero(start), len(key)])
        if size.max() > 2:
            raise RatingsError(
                f"a comparison appears in {int(size.max())} rows (same annotator, document and pair of "
                "systems); give each comparison one row, or two mirror rows"
            )
        second = np.flatnonzero(~start)  # the second row of a mirrored comparison
        same_side = (outcome[second] >= 3) == (outcome[second - 1] >= 3)
        disagree = (outcome[second] % 3) != (outcome[second - 1] % 3)
        if same_side.any() or disagree.any():
            what = "repeat a comparison from the same side" if same_side.any() else "disagree"
            raise RatingsError(
                f"two rows of a comparison {what} (same annotator, document and pair of systems); "
                "give each comparison one row, or two mirror rows whose scores add up to 1"
            )
        pair, outcome = pair[start], outcome[start] % 3
        n_sys = len(self.names)
        names = sorted(self.names)  # systems in sorted order, as the in-memory table has them
        to_sorted = np.empty(n_sys, dtype=np.int64)
        to_sorted[[self.names[n] for n in names]] = np.arange(n_sys)
        a, b = to_sorted[pair >> 32], to_sorted[pair & 0xFFFFFFFF]
        flat = np.bincount
        wins = flat(a * n_sys + b, outcome == 0, n_sys * n_sys) + flat(
            b * n_sys + a, outcome == 1, n_sys * n_sys
        )
        ties = flat(a * n_sys + b, outcome == 2, n_sys * n_sys).reshape(n_sys, n_sys)
        return PairCounts(
            systems=tuple(names),
            wins=wins.reshape(n_sys, n_sys).astype(np.int64),
            ties=(ties + ties.T).astype(np.int64),
            n_rows=self.n_rows,
            n_comparisons=len(pair),
            criterion=self.criterion if self.criterion is not None else next(iter(self.criteria), None),
        )


def _shown(value: object) -> str:
    """A cell as an error message quotes it: text in quotes, a number as written."""
    return repr(value) if isinstance(value, str) else str(value)


def _mix(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: spreads every input bit over the 64 output bits."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _hash(column: pd.Series) -> np.ndarray:
    """A 64-bit hash of every id, after stripping surrounding spaces (as validation does); ids that
    repeat (annotators) are hashed once each, ids that do not (prompts) directly."""
    head = column.iloc[:_SAMPLE]
    if len(head) == _SAMPLE and head.nunique() * 2 > _SAMPLE:
        return _hashed(column.to_numpy(dtype=object))
    codes, uniques = pd.factorize(column)
    return _hashed(np.asarray(uniques, dtype=object))[codes]


def _hashed(values: np.ndarray) -> np.ndarray:
    text = pd.Series(values, dtype=object).astype(str).str.strip().to_numpy(dtype=object)
    return pd.util.hash_array(text, categorize=False)


#: Cells of a column looked at to tell ids that repeat from ids that do not.
_SAMPLE = 2_000


def count_pairs(
    frames: pd.DataFrame | Iterable[pd.DataFrame],
    *,
    criterion: str | None = None,
    where: str = "table",
    lines: bool = False,
) -> PairCounts:
    """Win and tie counts of the comparisons in a pairwise table, or in its chunks one after another.

    Parameters
    ----------
    frames : DataFrame or iterable of DataFrames
        ``annotator, document, system, opponent, score`` (1 won, 0 lost, 0.5 tie), one row per
        comparison or two mirror rows; ``criterion``, ``is_check`` and ``rater_kind`` are honoured.
    criterion : str, optional
        The criterion to count (needed when the table has several).
    where : str
        How errors name the table (a file name).
    lines : bool
        Errors name the line of a CSV file (the header is line 1) instead of the row.

    Returns
    -------
    PairCounts

    Raises
    ------
    RatingsError
        A missing column or id, a score other than 0, 0.5 or 1, a system compared with itself, a
        comparison in more than two rows or mirror rows that disagree.

    Examples
    --------
    >>> table = pd.DataFrame({"annotator": ["w1", "w1", "w2"], "document": ["p1", "p1", "p2"],
    ...                       "system": ["a", "b", "b"], "opponent": ["b", "a", "a"], "score": [1, 0, 0.5]})
    >>> counts = count_pairs(table)   # rows 1 and 2 are one comparison, written from both sides
    >>> counts.n_comparisons, counts.wins.tolist(), counts.ties.tolist()
    (2, [[0, 1], [0, 0]], [[0, 1], [1, 0]])
    """
    counter = _Counter(criterion, lines)
    first_row = 0
    for chunk in [frames] if isinstance(frames, pd.DataFrame) else frames:
        counter.add(chunk.reset_index(drop=True), first_row, where)
        first_row += len(chunk)
    return counter.result()


def read_pair_counts(
    path: str | Path,
    *,
    criterion: str | None = None,
    chunk_rows: int = CHUNK_ROWS,
    progress: bool | Callable[[str], None] = False,
) -> PairCounts:
    """:func:`count_pairs` of a Parquet or CSV file read ``chunk_rows`` rows at a time.

    ``progress``: True shows a bar on stderr (the file's rows, known before reading for Parquet, its
    bytes for CSV); a callable gets one line per chunk.
    """
    path = Path(path)
    if not path.is_file():
        raise OptionError(f"{path}: no such file")
    if chunk_rows < 1:
        raise OptionError(f"chunk_rows must be at least 1, not {chunk_rows}")
    chunks, total, unit = _chunks(path, chunk_rows)
    return count_pairs(
        _reported(chunks, total, unit, progress, path.name),
        criterion=criterion,
        where=str(path),
        lines=unit == "bytes",  # a CSV file: errors name its lines
    )


def _chunks(path: Path, chunk_rows: int) -> tuple[Iterator[pd.DataFrame], int, str]:
    """The file's chunks, and its size (rows for Parquet, bytes for CSV) for the progress bar."""
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise OptionError(
                f"{path}: reading Parquet needs pyarrow (pip install 'humaneval[arrow]'), or save it as CSV"
            ) from None
        source = pq.ParquetFile(path)
        names = set(source.schema_arrow.names)
        columns = [c for c in (*_COLUMNS, *_OPTIONAL) if c in names]
        batches = source.iter_batches(batch_size=chunk_rows, columns=columns)
        return (batch.to_pandas() for batch in batches), source.metadata.num_rows, "rows"
    if path.suffix.lower() not in (".csv", ".tsv", ".txt"):
        raise OptionError(f"{path}: counting comparisons reads .parquet or .csv/.tsv files")
    header = pd.read_csv(path, nrows=0, sep=None if path.suffix.lower() != ".csv" else ",", engine="python")
    wanted = [c for c in (*_COLUMNS, *_OPTIONAL) if c in header.columns]
    reader = pd.read_csv(
        path,
        sep="\t" if path.suffix.lower() == ".tsv" else ",",
        usecols=wanted,
        dtype={c: str for c in wanted if c != "score"},
        chunksize=chunk_rows,
        keep_default_na=False,
        na_values=[""],
    )
    return reader, path.stat().st_size, "bytes"


def _reported(
    chunks: Iterator[pd.DataFrame], total: int, unit: str, progress: bool | Callable[[str], None], name: str
) -> Iterator[pd.DataFrame]:
    """The chunks, with a progress bar (rows read of the file's rows) or a line per chunk."""
    if not progress:
        yield from chunks
        return
    if callable(progress):
        done = 0
        for chunk in chunks:
            done += len(chunk)
            progress(f"{name}: {done:,} rows read" + (f" of {total:,}" if unit == "rows" else ""))
            yield chunk
        return
    from tqdm import tqdm

    with tqdm(total=total if unit == "rows" else None, unit="rows", desc=f"counting {name}") as bar:
        for chunk in chunks:
            bar.update(len(chunk))
            yield chunk


def counts_judgements(counts: PairCounts) -> Judgements:
    """The :class:`~humaneval.comparative.judgements.Judgements` of win counts: one event per pair and
    outcome that occurred, each comparison one judgement; no clusters (model or naive inference only)."""
    n_sys = len(counts.systems)
    i, j = np.triu_indices(n_sys, 1)
    per_outcome = np.stack([counts.wins[i, j], counts.wins[j, i], counts.ties[i, j]], axis=1)  # (pairs, 3)
    pair, chosen = np.nonzero(per_outcome)
    number = per_outcome[pair, chosen]
    ties = bool(counts.ties.any())
    n_par = n_sys - 1 + ties
    features = np.zeros((len(pair), 3 if ties else 2, n_par + 1))
    rank = np.arange(len(pair))
    features[rank, 0, i[pair]] = 1.0
    features[rank, 1, j[pair]] = 1.0
    if ties:
        features[rank, 2, i[pair]] = features[rank, 2, j[pair]] = 0.5
        features[:, 2, n_par] = 1.0
    total = int(number.sum())
    incidence = csr_matrix(
        (np.ones(total), np.repeat(rank, number), np.arange(total + 1)), shape=(total, len(pair))
    )
    played = counts.wins.sum(axis=1) + counts.wins.sum(axis=0) + counts.ties.sum(axis=1)
    with np.errstate(invalid="ignore"):
        rate = (counts.wins.sum(axis=1) + 0.5 * counts.ties.sum(axis=1)) / played
    return Judgements(
        kind="pairwise",
        model="davidson" if ties else "bradley-terry",
        systems=counts.systems,
        features=features[:, :, 1:],
        mask=np.ones(features.shape[:2], dtype=bool),
        chosen=chosen.astype(int),
        incidence=incidence,
        clusters=_no_clusters,
        beats=(counts.wins + counts.ties).astype(float),
        means=pd.Series(rate, index=list(counts.systems)),
        n_rows=counts.n_rows,
    )


def _no_clusters() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    raise OptionError(
        "win counts hold no annotators or documents: use inference 'model' or 'naive', or analyse the "
        "table itself for a cluster bootstrap or the mixed model"
    )


def analyze_counts(
    counts: PairCounts,
    *,
    inference: str = "model",
    adjust: str | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 1,
) -> ComparativeAnalysis:
    """The pooled Bradley–Terry (Davidson with ties) analysis of win counts, as
    :func:`~humaneval.comparative.analyze_comparative` gives it for the table with the same inference.

    Parameters
    ----------
    counts : PairCounts
        From :func:`count_pairs` or :func:`read_pair_counts`.
    inference : {"model", "naive"}
        Observed information, or the bootstrap of comparisons (counts hold no clusters).
    adjust, n_resamples, confidence_level, alpha, seed
        As :func:`~humaneval.comparative.analyze_comparative`.

    Examples
    --------
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> from humaneval.comparative import analyze_comparative
    >>> table = simulate_pairwise_study([0.5, 0.0, -0.5], seed=1)
    >>> pooled = analyze_counts(count_pairs(table))
    >>> same = analyze_comparative(table, inference="model")
    >>> bool(np.allclose(pooled.fit.beta, same.fit.beta, atol=1e-10, rtol=0))
    True
    """
    if inference not in COUNT_INFERENCE:
        raise OptionError(
            f"inference {inference!r} needs the table's annotators and documents; win counts allow "
            f"{' or '.join(COUNT_INFERENCE)}"
        )
    judgements = counts_judgements(counts)
    check_estimable(judgements.beats, judgements.systems, MODEL_NAMES[judgements.model])
    if judgements.model == "davidson" and not counts.wins.any():
        raise ModelSpecError("every comparison is a tie: the systems cannot be told apart")
    return analyze_judgements(
        judgements,
        kind="pairwise",
        criterion=counts.criterion,
        inference=inference,
        adjust=check_adjust(adjust or "tukey"),
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alpha=alpha,
        seed=seed,
    )
