"""Power (and Type I error) of pairwise and best–worst studies, simulated with the comparative models.

A :class:`ComparativeDesign` holds who judges what: one row per judgement (annotator, document, the
systems shown), read from a design made by ``humaneval design --method pairwise|bws`` (attention
checks and warm-ups left out) or laid out in blocks as in :mod:`humaneval.comparative.simulate`.
Each simulated study draws annotator × system deviations α_as ~ N(0, annotator_sd²) and document
× system deviations δ_ds ~ N(0, document_sd²), answers every judgement from the Davidson
(Bradley–Terry when ``tie`` = 0) or MaxDiff model on the utilities θ_s + α_as + δ_ds, and is
analysed by :func:`~humaneval.comparative.analyze_comparative` with the model a researcher would
use (the default inference of its kind). A pair counts as detected when its unadjusted p-value is
below α and the estimate has the sign of the true difference; the rates carry Monte-Carlo SEs and
Clopper–Pearson intervals, and a power run reports the same analysis's Type I error on the same
design beside it, as the Likert power simulation does (docs/simulation.md).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.comparative.simulate import davidson_probabilities
from humaneval.core.deprecation import renamed
from humaneval.errors import DesignError, HumanEvalError
from humaneval.methods import get_method
from humaneval.present.document import Block, Bullets, Column, Paragraph, Table, Text
from humaneval.present.formatting import fmt_estimate_ci
from humaneval.present.printable import Printable, frame_table
from humaneval.stats.proportions import CALIBRATION_RANGE, calibration_warnings, clopper_pearson

#: Design methods simulated here, and the kind of table they give.
METHODS = {"pairwise": "pairwise", "bws": "bws"}
#: Defaults of a block design given as ``pairwise:…`` or ``bws:…``.
BLOCK_DEFAULTS = {"systems": 4, "blocks": 10, "docs": 5, "annotators": 3, "tuple_size": 4, "bws_factor": 2.0}
DEFAULT_EFFECT = 0.5
DEFAULT_ANNOTATOR_SD = 0.5


@dataclass(frozen=True, eq=False)
class ComparativeDesign:
    """Who judges which systems on which document: one row per judgement.

    Attributes
    ----------
    kind:
        ``pairwise`` or ``bws``.
    systems:
        System names (the first is the reference of ``--effect``).
    annotator, document:
        (J,) codes of each judgement's annotator and document.
    members:
        (J, k) system indices shown in each judgement (k = 2 for pairwise).
    label:
        A name for reports (the design file or the block layout).
    """

    kind: str
    systems: tuple[str, ...]
    annotator: np.ndarray
    document: np.ndarray
    members: np.ndarray
    label: str
    annotators: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()
    document_sd: float = 0.0
    layout: dict[str, Any] | None = None

    @property
    def n_judgements(self) -> int:
        return len(self.members)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "design") -> ComparativeDesign:
        """The judgements of a ``humaneval design --method pairwise|bws`` table (checks left out)."""
        method = str(frame["method"].iloc[0]) if "method" in frame and len(frame) else ""
        if method not in METHODS:
            raise DesignError(f"{name}: method {method!r}; comparative power covers pairwise and bws designs")
        keep = np.ones(len(frame), dtype=bool)
        for flag in ("is_check", "is_warmup", "is_anchor_repeat"):
            if flag in frame:
                keep &= ~frame[flag].astype(str).str.strip().str.lower().isin(("true", "1"))
        rows = frame[keep & frame["system"].notna() & (frame["system"].astype(str) != "")]
        missing = [c for c in ("annotator_slot", "screen_id", "document", "system") if c not in rows]
        if missing:
            raise DesignError(f"{name}: a design table needs the column(s) {', '.join(missing)}")
        if rows.empty:
            raise DesignError(f"{name}: no judgements left after leaving out attention checks")
        systems = tuple(sorted(rows["system"].astype(str).unique()))
        index = {s: i for i, s in enumerate(systems)}
        screens = rows.sort_values(
            ["annotator_slot", "position", "display_pos"]
            if "position" in rows
            else ["annotator_slot", "screen_id"]
        )
        grouped = screens.groupby(["annotator_slot", "screen_id"], sort=False)
        members = [tuple(index[s] for s in part["system"].astype(str)) for _, part in grouped]
        sizes = {len(m) for m in members}
        if len(sizes) != 1 or (get_method(method).unit == "pair" and sizes != {2}):
            raise DesignError(f"{name}: every {method} screen must show the same number of summaries")
        keys = grouped.size().index.to_frame(index=False)
        docs = grouped["document"].first().to_numpy()
        annotator, annotators = pd.factorize(keys["annotator_slot"].astype(str))
        document, documents = pd.factorize(pd.Series(docs).astype(str))
        return cls(
            kind=METHODS[method],
            systems=systems,
            annotator=annotator,
            document=document,
            members=np.array(members, dtype=int),
            label=Path(name).name,
            annotators=tuple(annotators),
            documents=tuple(documents),
        )

    @classmethod
    def from_ratings(cls, ratings: Any, kind: str, name: str = "this study") -> ComparativeDesign:
        """The judgements of a collected pairwise or best–worst table (who compared what), e.g. to
        simulate the power of the study's own design."""
        from humaneval.core.ratings import as_ratings

        data = as_ratings(ratings).without_checks().data
        systems = tuple(sorted(set(data["system"].astype(str))))
        index = {s: i for i, s in enumerate(systems)}
        if get_method(kind).unit == "pair":
            rows = data[data["system"].astype(str) < data["opponent"].astype(str)]
            members = np.column_stack(
                [rows["system"].astype(str).map(index), rows["opponent"].astype(str).map(index)]
            )
        elif get_method(kind).unit == "tuple":
            keys = ["annotator", "document", "tuple_id"]
            rows = data.groupby(keys, sort=False).first().reset_index()
            shown = data.groupby(keys, sort=False)["system"].agg(lambda s: [index[str(v)] for v in s])
            if shown.map(len).nunique() != 1:
                raise DesignError(f"{name}: tuples of different sizes cannot be simulated together")
            members = np.array(shown.tolist())
        else:
            raise DesignError(f"{name}: power of {kind} tables is simulated for pairwise and bws only")
        annotator, annotators = pd.factorize(rows["annotator"].astype(str))
        document, documents = pd.factorize(rows["document"].astype(str))
        return cls(
            kind=kind,
            systems=systems,
            annotator=np.asarray(annotator),
            document=np.asarray(document),
            members=np.asarray(members, dtype=int),
            label=name,
            annotators=tuple(annotators),
            documents=tuple(documents),
        )

    @classmethod
    def from_blocks(
        cls,
        kind: str,
        systems: int | tuple[str, ...] = 4,
        blocks: int = 10,
        docs: int = 5,
        annotators: int = 3,
        tuple_size: int = 4,
        bws_factor: float = 2.0,
        seed: int = 1,
        document_sd: float = 0.0,
    ) -> ComparativeDesign:
        """Blocks of ``docs`` documents judged by their own ``annotators``: every pair per document
        (pairwise) or ⌈``bws_factor`` · S⌉ balanced tuples of ``tuple_size`` per document (bws)."""
        from humaneval.design.bws import bws_tuples

        names = tuple(f"s{i}" for i in range(systems)) if isinstance(systems, int) else tuple(systems)
        if kind not in METHODS or len(names) < 2 or min(blocks, docs, annotators) < 1:
            raise DesignError(
                f"a {kind} block design needs 2 or more systems and at least 1 block, document and annotator"
            )
        if get_method(kind).unit == "tuple" and not 2 <= tuple_size < len(names):
            raise DesignError(f"bws tuple_size must be between 2 and {len(names) - 1}")
        rng = np.random.default_rng(seed)
        ann, doc, members = [], [], []
        for b in range(blocks):
            for d in range(b * docs, (b + 1) * docs):
                shown = (
                    list(combinations(range(len(names)), 2))
                    if get_method(kind).unit == "pair"
                    else [
                        tuple(t)
                        for t in bws_tuples(len(names), tuple_size, bws_factor, iterations=20, rng=rng)
                    ]
                )
                for a in range(b * annotators, (b + 1) * annotators):
                    ann += [a] * len(shown)
                    doc += [d] * len(shown)
                    members += shown
        label = f"{kind} {blocks} blocks × {docs} docs × {annotators} annotators, {len(names)} systems"
        return cls(
            kind=kind,
            systems=names,
            annotator=np.array(ann),
            document=np.array(doc),
            members=np.array(members, dtype=int),
            label=label,
            document_sd=document_sd,
            layout={
                "kind": kind, "systems": names, "blocks": blocks, "docs": docs, "annotators": annotators,
                "tuple_size": tuple_size, "bws_factor": bws_factor, "seed": seed, "document_sd": document_sd,
            },
        )  # fmt: skip

    def resized(self, along: str, size: int) -> ComparativeDesign:
        """The same block design with ``size`` blocks, documents per block or annotators per block."""
        if self.layout is None:
            raise DesignError(
                f'{self.label}: a power curve needs a block design (--design "{self.kind}:blocks=…,docs=…,'
                'annotators=…"); a design file has a fixed size'
            )
        key = {"blocks": "blocks", "documents": "docs", "annotators": "annotators"}[along]
        return ComparativeDesign.from_blocks(**{**self.layout, key: int(size)})

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "kind": self.kind,
            "systems": list(self.systems),
            "judgements": self.n_judgements,
            "annotators": int(self.annotator.max()) + 1,
            "documents": int(self.document.max()) + 1,
            "per_judgement": int(self.members.shape[1]),
        }

    def sample(
        self,
        strengths: np.ndarray,
        rng: np.random.Generator,
        annotator_sd: float = DEFAULT_ANNOTATOR_SD,
        tie: float = 0.0,
    ) -> pd.DataFrame:
        """One simulated study as a table :func:`~humaneval.comparative.analyze_comparative` reads."""
        n_sys = len(self.systems)
        alpha = rng.normal(0.0, annotator_sd, size=(int(self.annotator.max()) + 1, n_sys))
        delta = rng.normal(0.0, self.document_sd, size=(int(self.document.max()) + 1, n_sys))
        utility = np.asarray(strengths, float)[None, :] + alpha[self.annotator] + delta[self.document]
        u = np.take_along_axis(utility, self.members, axis=1)
        names = np.array(self.systems)
        annotators = np.char.add("a", self.annotator.astype(str))
        documents = np.char.add("d", self.document.astype(str))
        if get_method(self.kind).unit == "pair":
            p_first = np.array([davidson_probabilities(x, y, tie) for x, y in u]) if tie else None
            draw = rng.random(len(u))
            if p_first is None:
                score = (draw < 1 / (1 + np.exp(u[:, 1] - u[:, 0]))).astype(float)
            else:
                score = np.select(
                    [draw < p_first[:, 0], draw < p_first[:, 0] + p_first[:, 1]], [1.0, 0.0], 0.5
                )
            first, second = names[self.members[:, 0]], names[self.members[:, 1]]
            return pd.DataFrame(
                {
                    "annotator": np.r_[annotators, annotators],
                    "document": np.r_[documents, documents],
                    "system": np.r_[first, second],
                    "opponent": np.r_[second, first],
                    "score": np.r_[score, 1.0 - score],
                }
            )
        k = u.shape[1]
        weights = np.exp(u[:, :, None] - u[:, None, :])
        weights[:, np.arange(k), np.arange(k)] = 0.0
        flat = weights.reshape(len(u), -1)
        cumulative = np.cumsum(flat / flat.sum(axis=1, keepdims=True), axis=1)
        pick = np.minimum((cumulative < rng.random(len(u))[:, None]).sum(axis=1), k * k - 1)
        best, worst = np.divmod(pick, k)
        score = np.zeros((len(u), k), dtype=int)
        score[np.arange(len(u)), best] = 1
        score[np.arange(len(u)), worst] = -1
        return pd.DataFrame(
            {
                "annotator": np.repeat(annotators, k),
                "document": np.repeat(documents, k),
                "tuple_id": np.repeat(np.char.add("t", np.arange(len(u)).astype(str)), k),
                "system": names[self.members].ravel(),
                "score": score.ravel(),
            }
        )


def parse_design(spec: str) -> ComparativeDesign | None:
    """A comparative design from ``--design``: a design CSV of method pairwise/bws, or
    ``pairwise:systems=4,blocks=10,docs=5,annotators=3`` (bws: also ``tuple_size``, ``bws_factor``;
    both: ``document_sd``, ``seed``). None when ``spec`` is neither (a Likert design)."""
    match = re.fullmatch(r"\s*(pairwise|bws)\s*(?::\s*(.*))?", spec)
    if match:
        kind, rest = match.group(1), match.group(2) or ""
        values: dict[str, Any] = dict(BLOCK_DEFAULTS)
        extra = {"document_sd": 0.0, "seed": 1}
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, _, value = part.partition("=")
            key = key.strip().replace("-", "_")
            if key not in values and key not in extra:
                raise DesignError(
                    f"--design {spec!r}: unknown key {key!r}; use {', '.join([*values, *extra])}"
                )
            try:
                parsed = float(value) if key in ("bws_factor", "document_sd") else int(value)
            except ValueError:
                raise DesignError(f"--design {spec!r}: {key} must be a number, not {value!r}") from None
            (values if key in values else extra)[key] = parsed
        return ComparativeDesign.from_blocks(kind, **values, **extra)
    path = Path(spec)
    if path.suffix.lower() not in (".csv", ".tsv") or not path.is_file():
        return None
    try:
        head = pd.read_csv(path, sep="\t" if path.suffix.lower() == ".tsv" else ",", nrows=5)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
        return None  # not a comparative design; the Likert reader reports what is wrong
    if "method" not in head or head.empty or str(head["method"].iloc[0]) not in METHODS:
        return None
    return ComparativeDesign.from_frame(
        pd.read_csv(path, sep="\t" if path.suffix.lower() == ".tsv" else ","), spec
    )


def parse_effects(effect: str | None, systems: tuple[str, ...]) -> np.ndarray:
    """Strengths θ from ``--effect``: a bare V (every system V above the reference, the first),
    ``S=V`` or ``S-reference=V`` per system (logit scale); default 0.5 for every system."""
    theta = np.zeros(len(systems))
    if effect is None or not effect.strip():
        theta[1:] = DEFAULT_EFFECT
        return theta
    try:
        theta[1:] = float(effect)
        return theta
    except ValueError:
        pass
    index = {s: i for i, s in enumerate(systems)}
    for part in filter(None, (p.strip() for p in effect.split(","))):
        name, _, value = part.partition("=")
        name = name.strip()
        if "-" in name and name not in index:
            name, _, base = name.partition("-")
            if base.strip() != systems[0]:
                raise DesignError(
                    f"--effect {part!r}: comparative effects are given against the reference "
                    f"{systems[0]!r} (S={value} or S-{systems[0]}={value})"
                )
        if name.strip() not in index:
            raise DesignError(
                f"--effect {part!r}: unknown system {name!r}; the design has {', '.join(systems)}"
            )
        try:
            theta[index[name.strip()]] = float(value)
        except ValueError:
            raise DesignError(f"--effect {part!r}: {value!r} is not a number") from None
    return theta


@dataclass(frozen=True, eq=False)
class ComparativePower(Printable):
    """Rates per pair of a comparative power simulation, shaped like the Likert ``SimulationResult``.

    ``results`` has one row per pair plus a ``pair == "all"`` row: ``test`` (the model),
    ``aggregate`` (the inference), ``rate``, ``mc_se``, Clopper–Pearson ``ci_low``–``ci_high``,
    ``n_trials``, ``n_failed`` (no estimate at all, counted as not significant),
    ``rate_successful``, ``sign_error_rate`` and ``true_difference``.
    """

    design: ComparativeDesign
    strengths: np.ndarray
    annotator_sd: float
    tie: float
    null: bool
    seed: int
    alpha: float
    results: pd.DataFrame
    fits: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    calibration: ComparativePower | None = None

    def overall(self) -> pd.DataFrame:
        return self.results[self.results["pair"] == "all"].reset_index(drop=True)

    def calibration_warnings(self) -> list[str]:
        """One line per test whose simulated Type I error lies outside :data:`CALIBRATION_RANGE`."""
        if self.calibration is None:
            return []
        return calibration_warnings(self.calibration.overall(), self.alpha)

    def to_dict(self) -> dict[str, Any]:
        """The ``humaneval power --json`` payload: the keys of the Likert power result."""
        out: dict[str, Any] = {
            "kind": "type1" if self.null else "power",
            "design": self.design.to_dict(),
            "model": {
                "kind": self.design.kind,
                "systems": list(self.design.systems),
                "strengths": self.strengths.tolist(),
                "annotator_sd": self.annotator_sd,
                "document_sd": self.design.document_sd,
                "tie": self.tie,
            },
            "seed": self.seed,
            "alpha": self.alpha,
            "fits": dict(self.fits),
            "seconds": self.seconds,
            "results": self.results.to_dict(orient="records"),
        }
        if self.calibration is not None:
            out["calibration"] = {
                "range": list(CALIBRATION_RANGE),
                "results": self.calibration.overall().to_dict(orient="records"),
                "fits": dict(self.calibration.fits),
                "warnings": self.calibration_warnings(),
            }
        return out

    def blocks(self) -> tuple[Block, ...]:
        kind = "Type I error" if self.null else "power"
        d = self.design.to_dict()
        shown = ", ".join(f"{s} {v:g}" for s, v in zip(self.design.systems, self.strengths, strict=True))
        calibration = None if self.calibration is None else self.calibration.overall()
        columns = [Column("pair"), Column("model (inference)"), Column(f"{kind} [95% CI]", align="r")]
        rows = []
        for row in self.results.itertuples():
            cells = [
                row.pair,
                f"{row.test} ({row.aggregate})",
                fmt_estimate_ci(row.rate, row.ci_low, row.ci_high),
            ]
            if calibration is not None:
                cal = calibration.iloc[0]
                cells.append(
                    fmt_estimate_ci(cal["rate"], cal["ci_low"], cal["ci_high"]) if row.pair == "all" else ""
                )
            rows.append(tuple(cells))
        if calibration is not None:
            columns.append(Column("Type I [95% CI]", align="r"))
        notes: list[Text] = [
            (
                f"strengths {shown} (logit); annotator × system SD {self.annotator_sd:g}, "
                f"document × system SD {self.design.document_sd:g}"
                + (f", tie ν {self.tie:g}" if self.tie else ""),
            ),
            ("fits: " + ", ".join(f"{k} {v}" for k, v in sorted(self.fits.items())),),
        ]
        return (
            Paragraph(
                (
                    f"{kind} of {self.design.label} ({d['judgements']} judgements, {d['annotators']} "
                    f"annotators, {d['documents']} documents), {self.overall()['n_trials'].iloc[0]} "
                    f"simulated studies, seed {self.seed}",
                )
            ),
            Bullets(tuple(notes)),
            Table(tuple(columns), tuple(rows)),
            *(
                (Bullets(tuple((f"warning: {w}",) for w in warnings)),)
                if (warnings := self.calibration_warnings())
                else ()
            ),
        )


@dataclass(frozen=True, eq=False)
class _Replicates:
    """What every simulated study of one run shares (picklable, for worker processes)."""

    design: ComparativeDesign
    theta: np.ndarray
    annotator_sd: float
    tie: float
    inference: str
    n_resamples: int
    seed: int

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return list(combinations(range(len(self.design.systems)), 2))

    def header(self) -> dict[str, Any]:
        """The checkpoint's first line: a resumed run must match it (``trials`` may grow)."""
        d = self.design
        layout = hashlib.sha256()
        for codes in (d.annotator, d.document, d.members):
            layout.update(np.ascontiguousarray(codes, dtype=np.int64).tobytes())
        return {
            "kind": "comparative_power",
            "design": {**d.to_dict(), "layout_sha256": layout.hexdigest()},
            "strengths": [float(v) for v in self.theta],
            "annotator_sd": float(self.annotator_sd),
            "document_sd": float(d.document_sd),
            "tie": float(self.tie),
            "inference": self.inference,
            "n_resamples": int(self.n_resamples),
            "seed": int(self.seed),
        }


def comparative_replicate(config: _Replicates, index: int) -> dict[str, Any]:
    """Simulate and analyse study ``index`` from its own seed (a JSON-able checkpoint record).

    ``p`` and ``estimate`` hold per pair (in :func:`itertools.combinations` order) the unadjusted
    p-value and estimated difference; ``fit`` is the inference that analysed it or ``failed``.
    """
    from humaneval.clmm.compiled import warm_kernels

    with warm_kernels():  # many mixed fits: the compiled kernels pay their load together
        return _replicate(config, index)


def _replicate(config: _Replicates, index: int) -> dict[str, Any]:
    from humaneval.stats.replicates import replicate_seed

    rng = np.random.default_rng(replicate_seed(config.seed, index))
    design = config.design
    table = design.sample(config.theta, rng, config.annotator_sd, config.tie)
    try:
        result = _analyze(table, design.kind, config.inference, config.n_resamples, rng)
    except HumanEvalError:
        return {"replicate": index, "fit": "failed"}
    by_pair = result.contrasts.set_index(["system_a", "system_b"])
    rows = [by_pair.loc[(design.systems[i], design.systems[j])] for i, j in config.pairs]
    return {
        "replicate": index,
        "fit": result.fit.inference if not result.fit.fallbacks else f"{result.fit.inference} (fallback)",
        "model": result.test,
        "p": [float(row["p_unadj"]) for row in rows],
        "estimate": [float(row["estimate"]) for row in rows],
    }


@renamed(n_boot="n_resamples")
def comparative_power(
    design: ComparativeDesign,
    strengths: np.ndarray | None = None,
    *,
    annotator_sd: float = DEFAULT_ANNOTATOR_SD,
    tie: float = 0.0,
    inference: str | None = None,
    trials: int = 200,
    alpha: float = 0.05,
    null: bool = False,
    calibrate: bool = True,
    calibration_trials: int | None = None,
    n_resamples: int = 200,
    seed: int = 1,
    progress: bool = False,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
) -> ComparativePower:
    """Simulate ``trials`` studies of ``design`` and the share in which each pair is detected.

    Study i draws from its own seed (:func:`~humaneval.stats.replicates.replicate_seed`), so the
    result does not depend on workers, chunks or interruptions; the Type I error beside it uses
    ``seed + 1``.

    Parameters
    ----------
    design:
        From :func:`parse_design` or :class:`ComparativeDesign`.
    strengths:
        θ per system (logit scale); default 0.5 above the reference for every other system.
    annotator_sd:
        SD of the annotator × system deviations (logit scale).
    tie:
        Davidson's ν of the simulated pairwise answers (0: no ties).
    inference:
        How the simulated studies are analysed; default that of
        :func:`~humaneval.comparative.analyze_comparative` for the kind.
    null:
        Set every strength to 0 (the rate is then the Type I error).
    calibrate:
        With a power run, also simulate ``calibration_trials`` null studies (Type I error beside power).
    n_resamples:
        Bootstrap replicates per study (formerly ``n_boot``) when the inference is a cluster bootstrap.
    progress:
        Show a tqdm progress bar.
    checkpoint:
        JSON-lines file each finished study is appended to (its first line describes the run);
        the calibration's studies go to ``<stem>-null<suffix>`` beside it.
    resume:
        Continue ``checkpoint``: studies already there are kept, the rest simulated, so the result
        equals that of an uninterrupted run (also to extend a run with a larger ``trials``). A
        checkpoint written with other settings raises :class:`~humaneval.errors.DesignError`.
    workers, scheduler:
        Local worker processes, or a dask.distributed scheduler address.

    Returns
    -------
    ComparativePower

    Examples
    --------
    >>> design = ComparativeDesign.from_blocks("pairwise", 3, blocks=4)
    >>> result = comparative_power(design, trials=10, calibrate=False, seed=1)
    >>> float(result.overall()["rate"].iloc[0])
    0.4
    """
    from humaneval.comparative.analyze import default_inference
    from humaneval.stats.replicates import run_replicates

    theta = (
        np.zeros(len(design.systems))
        if null
        else (parse_effects(None, design.systems) if strengths is None else np.asarray(strengths, float))
    )
    if theta.shape != (len(design.systems),):
        raise DesignError(f"give one strength per system ({len(design.systems)}), not {theta.shape}")
    config = _Replicates(design, theta, annotator_sd, tie, inference or default_inference(design.kind),
                         n_resamples, seed)  # fmt: skip
    clock = time.perf_counter()
    records = run_replicates(
        comparative_replicate,
        config,
        trials,
        header=config.header(),
        workers=workers,
        scheduler=scheduler,
        checkpoint=checkpoint,
        resume=resume,
        progress=progress,
        max_chunk=5,  # a study is a model fit with its bootstrap
        desc="Type I error" if null else "power",
    )
    pairs = config.pairs
    p = np.array([r["p"] if r["fit"] != "failed" else [np.nan] * len(pairs) for r in records], float)
    est = np.array([r["estimate"] if r["fit"] != "failed" else [np.nan] * len(pairs) for r in records], float)
    fits: dict[str, int] = {}
    for record in records:
        fits[record["fit"]] = fits.get(record["fit"], 0) + 1
    model = next((r["model"] for r in records if r["fit"] != "failed"), "none")
    truth = np.array([theta[i] - theta[j] for i, j in pairs])
    results = _rates(design, pairs, truth, p, est, alpha, null, model, config.inference)
    calibration = None
    if calibrate and not null:
        null_checkpoint = None
        if checkpoint is not None:
            path = Path(checkpoint)
            null_checkpoint = path.with_name(f"{path.stem}-null{path.suffix}")
        calibration = comparative_power(
            design,
            theta,
            annotator_sd=annotator_sd,
            tie=tie,
            inference=config.inference,
            trials=calibration_trials or trials,
            alpha=alpha,
            null=True,
            calibrate=False,
            n_resamples=n_resamples,
            seed=seed + 1,
            progress=progress,
            checkpoint=null_checkpoint,
            resume=resume,
            workers=workers,
            scheduler=scheduler,
        )
    return ComparativePower(
        design=design,
        strengths=theta,
        annotator_sd=annotator_sd,
        tie=tie,
        null=null,
        seed=seed,
        alpha=alpha,
        results=results,
        fits=fits,
        seconds=time.perf_counter() - clock,
        calibration=calibration,
    )


@dataclass(frozen=True, eq=False)
class ComparativePowerCurve(Printable):
    """Power (and Type I error) of a block design along blocks, documents or annotators per block.

    ``table`` has one row per size (``break``): the ``all`` row of each :class:`ComparativePower`
    (``test``, ``aggregate``, ``rate``, ``ci_low``, ``ci_high``, ``n_trials``, ``n_failed``) and,
    with calibration, ``type1`` with its interval — the columns of the Likert power curve.
    """

    along: str
    breaks: tuple[int, ...]
    runs: tuple[ComparativePower, ...]

    @property
    def table(self) -> pd.DataFrame:
        rows = []
        for size, run in zip(self.breaks, self.runs, strict=True):
            row = run.overall().iloc[0].to_dict()
            row = {"break": size, **{k: row[k] for k in ("test", "aggregate", "rate", "ci_low", "ci_high")},
                   "n_trials": row["n_trials"], "n_failed": row["n_failed"]}  # fmt: skip
            if run.calibration is not None:
                cal = run.calibration.overall().iloc[0]
                row.update(type1=cal["rate"], type1_ci_low=cal["ci_low"], type1_ci_high=cal["ci_high"])
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        first = self.runs[0].to_dict()
        return {
            "kind": "power_curve",
            "along": self.along,
            "breaks": list(self.breaks),
            "design": first["design"],
            "model": first["model"],
            "seed": first["seed"],
            "alpha": first["alpha"],
            "table": self.table.to_dict(orient="records"),
        }

    def blocks(self) -> tuple[Block, ...]:
        run = self.runs[0]
        table = self.table.assign(
            model=[f"{r.test} ({r.aggregate})" for r in self.table.itertuples()],
            power=[fmt_estimate_ci(r.rate, r.ci_low, r.ci_high) for r in self.table.itertuples()],
        )
        columns = ["break", "model", "power", "n_failed"]
        if "type1" in table:
            table["type1_shown"] = [
                fmt_estimate_ci(r.type1, r.type1_ci_low, r.type1_ci_high) for r in table.itertuples()
            ]
            columns.append("type1_shown")
        names = {
            "model": "model (inference)",
            "power": "power [95% CI]",
            "n_failed": "failed",
            "type1_shown": "Type I [95% CI]",
        }
        strengths = ", ".join(f"{s} {v:g}" for s, v in zip(run.design.systems, run.strengths, strict=True))
        return (
            Paragraph(
                (
                    f"power curve of {run.design.kind} judgements along {self.along} (strengths "
                    f"{strengths}; annotator × system SD {run.annotator_sd:g})",
                )
            ),
            frame_table(table, columns, names=names),
        )


def _analyze(table, kind, inference, n_resamples, rng):
    from humaneval.comparative.analyze import analyze_comparative

    return analyze_comparative(
        table, kind=kind, inference=inference, n_resamples=n_resamples, seed=rng, adjust="none"
    )


def _rates(design, pairs, truth, p, est, alpha, null, model, inference) -> pd.DataFrame:

    ok = ~np.isnan(p).all(axis=1)
    significant = np.nan_to_num(p, nan=1.0) < alpha
    sign = np.sign(np.where(np.abs(truth) < 1e-12, 0.0, truth))
    hit = np.where(sign == 0, significant, significant & (np.sign(est) == sign))
    wrong = significant & (sign != 0) & (np.sign(est) == -sign)
    scope = sign == 0 if null or not np.any(sign != 0) else sign != 0
    columns = [("all", float("nan"), hit[:, scope].mean(axis=1), wrong[:, scope].mean(axis=1))]
    columns += [
        (
            f"{design.systems[i]} - {design.systems[j]}",
            truth[k],
            hit[:, k].astype(float),
            wrong[:, k].astype(float),
        )
        for k, (i, j) in enumerate(pairs)
    ]
    n, n_ok = len(p), int(ok.sum())
    rows = []
    for pair, diff, hits, wrongs in columns:
        rate = float(hits.mean())
        rate_ok = float(hits[ok].mean()) if n_ok else float("nan")
        low, high = clopper_pearson(rate, n)
        rows.append(
            {
                "test": model,
                "aggregate": inference,
                "pair": pair,
                "true_difference": diff,
                "rate": rate,
                "mc_se": float(np.sqrt(rate * (1 - rate) / n)),
                "ci_low": low,
                "ci_high": high,
                "n_trials": n,
                "n_failed": n - n_ok,
                "rate_successful": rate_ok,
                "mc_se_successful": float(np.sqrt(rate_ok * (1 - rate_ok) / n_ok)) if n_ok else float("nan"),
                "sign_error_rate": float(wrongs.mean()),
            }
        )
    return pd.DataFrame(rows)


def run_power(
    spec: str,
    *,
    effect: str | None = None,
    annotator_sd: float | None = None,
    null: bool = False,
    trials: int = 200,
    calibration: bool = True,
    calibration_trials: int | None = None,
    seed: int = 1,
    out: Path | None = None,
    progress: bool = False,
    unused: dict[str, Any] | None = None,
    along: str | None = None,
    breaks: str | None = None,
    resume: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
) -> ComparativePower | ComparativePowerCurve | None:
    """What ``humaneval power --design`` runs for a comparative design; None for any other design.

    ``unused`` maps options of the Likert simulation to their values: any that is set is refused.
    ``along`` (blocks, documents, annotators) with ``breaks`` ("1,3,5") gives a power curve of a
    block design. With ``out`` the studies are checkpointed in ``out/replicates.jsonl`` (a curve:
    ``out/checkpoints/<along>-<size>.jsonl``), which ``resume`` continues.
    """
    design = parse_design(spec)
    if design is None:
        return None
    given = [name for name, value in (unused or {}).items() if value not in (None, False)]
    if given:
        raise DesignError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to a {design.kind} design; "
            "its power is simulated from --effect, --annotator-sd and the design (docs/analysis.md)"
        )
    options = dict(
        annotator_sd=DEFAULT_ANNOTATOR_SD if annotator_sd is None else annotator_sd,
        trials=trials,
        null=null,
        calibrate=calibration,
        calibration_trials=calibration_trials,
        seed=seed,
        progress=progress,
        resume=resume,
        workers=workers,
        scheduler=scheduler,
    )
    if resume and out is None:
        raise DesignError("--resume continues the checkpoint in --out: give the --out folder of the run")
    strengths = parse_effects(effect, design.systems)
    if (along is None) != (breaks is None):
        raise DesignError("--along and --breaks go together, e.g. --along annotators --breaks 1,3,5")
    if along is not None:
        try:
            sizes = tuple(int(b) for b in str(breaks).split(",") if b.strip())
        except ValueError:
            raise DesignError(f"--breaks {breaks!r}: give whole numbers separated by commas") from None
        if not sizes or min(sizes) < 1:
            raise DesignError(f"--breaks {breaks!r}: give sizes of at least 1")
        folder = None if out is None else out / "checkpoints"
        runs = tuple(
            comparative_power(
                design.resized(along, n),
                strengths,
                checkpoint=None if folder is None else folder / f"{along}-{n}.jsonl",
                **options,
            )
            for n in sizes
        )
        curve = ComparativePowerCurve(along, sizes, runs)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            curve.table.to_csv(out / "power_curve.csv", index=False)
        return curve
    checkpoint = None if out is None else out / "replicates.jsonl"
    result = comparative_power(design, strengths, checkpoint=checkpoint, **options)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        result.results.to_csv(out / "results.csv", index=False)
    return result
