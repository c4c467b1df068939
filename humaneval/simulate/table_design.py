"""Any planned design as a simulation design: the rows of a design table (or of a pilot's ratings).

:class:`TableDesign` holds one row per analysed judgement — annotator, document, system and
block — exactly as planned, so unbalanced blocks, irregular assignments and designs that
``humaneval design`` writes (attention checks, warm-ups and repeated anchors are left out, as the
collection step leaves them out of the analysis) are simulated as they are, without the
B × D × A assumption of :class:`~humaneval.simulate.designs.SimDesign`. Classic tests pair units
(``none``: annotator–document pairs, ``document``, ``cluster``: blocks) on which both systems of a
pair were judged, comparing per-unit means; the CLMM is fitted to the rows themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.clmm.structures import ClmmData
from humaneval.core.structure import cluster_labels, describe_structure
from humaneval.errors import DesignError
from humaneval.methods import METHODS

#: Design methods whose judgements are whole-number ratings of single summaries (simulated from a
#: CLMM); "" is a table without a method.
RATING_METHODS = (*(m.name for m in METHODS.values() if m.rates_items and m.integer), "")
_AGGREGATE_UNITS = {"none": ("annotator", "document"), "document": ("document",), "cluster": ("block",)}


@dataclass(frozen=True, eq=False)
class TableDesign:
    """A design given row by row: ``annotator``, ``document``, ``system`` and ``block`` per judgement.

    Parameters
    ----------
    rows:
        One row per analysed judgement (strings for the ids, an integer ``block``).
    name:
        Where the design comes from (a file name), used in labels.
    criterion:
        The criterion these rows are judged on (``""`` when the design has one).
    """

    rows: pd.DataFrame
    name: str = "design"
    criterion: str = ""

    def __post_init__(self) -> None:
        missing = [c for c in ("annotator", "document", "system") if c not in self.rows]
        if missing:
            raise DesignError(f"{self.name}: the design lacks the column(s) {', '.join(missing)}")
        rows = self.rows[["annotator", "document", "system"]].astype(str).reset_index(drop=True)
        if rows.empty:
            raise DesignError(f"{self.name}: the design has no judgements to simulate")
        if rows.duplicated().any():
            first = rows[rows.duplicated()].iloc[0]
            raise DesignError(
                f"{self.name}: annotator {first['annotator']} judges system {first['system']} on document "
                f"{first['document']} twice; each judgement must be planned once"
            )
        block = self.rows["block"] if "block" in self.rows else cluster_labels(rows)
        rows["block"] = pd.factorize(pd.Series(np.asarray(block)).astype(str))[0]
        object.__setattr__(self, "rows", rows)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "design") -> dict[str, TableDesign]:
        """Designs per criterion from a design table (``humaneval design``) or a ratings table.

        Attention checks, warm-ups and repeated anchors are dropped; ``annotator_slot`` is read
        as the annotator. A ``criterion`` (or ``dimension``) column with several values gives one
        design per criterion. Comparative methods (pairwise, BWS, ranking, DA) are refused.
        """
        renames = {"annotator_slot": "annotator", "item": "document"}
        table = frame.rename(columns={k: v for k, v in renames.items() if v not in frame})
        keep = np.ones(len(table), dtype=bool)
        for flag in ("is_check", "is_warmup", "is_anchor_repeat"):
            if flag in table:
                keep &= ~table[flag].astype(str).str.strip().str.lower().isin(("true", "1"))
        table = table[keep]
        if "method" in table:
            methods = sorted(set(table["method"].astype(str)) - set(RATING_METHODS))
            if methods:
                raise DesignError(
                    f"{name}: method {methods[0]!r}; power simulation from a CLMM covers rating designs "
                    "(likert) only; comparative designs (pairwise, bws, rank) are simulated by their own "
                    "judgement models"
                )
        column = next((c for c in ("criterion", "dimension") if c in table), None)
        if column is None or table[column].astype(str).nunique() <= 1:
            return {"": cls(table, name)}
        return {str(value): cls(part, name, str(value)) for value, part in table.groupby(column, sort=False)}

    # --- the SimDesign interface used by the simulator ---------------------------------------

    @property
    def label(self) -> str:
        base = Path(self.name).name
        return f"{base}[{self.criterion}]" if self.criterion else base

    @cached_property
    def structure(self):
        return describe_structure(self.rows.assign(score=1))

    @property
    def family(self) -> str:
        return self.structure.family

    @property
    def blocks(self) -> int:
        return int(self.rows["block"].nunique())

    @property
    def total_annotators(self) -> int:
        return int(self.rows["annotator"].nunique())

    @property
    def total_documents(self) -> int:
        return int(self.rows["document"].nunique())

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(pd.unique(self.rows["system"]))

    def judgements(self, n_systems: int | None = None) -> int:
        """Planned judgements in total (the table's rows; ``n_systems`` is ignored)."""
        return len(self.rows)

    def n_pairs(self, aggregate: str) -> int:
        """Pairing units of the classic tests at an aggregation level (all units of the design)."""
        return int(self.rows[list(_AGGREGATE_UNITS[aggregate])].drop_duplicates().shape[0])

    def to_dict(self) -> dict[str, object]:
        s = self.structure
        return {
            "source": self.name,
            "criterion": self.criterion or None,
            "judgements": len(self.rows),
            "systems": list(self.systems),
            "blocks": self.blocks,
            "family": self.family,
            "total_annotators": self.total_annotators,
            "total_documents": self.total_documents,
            "judgements_per_summary": str(s.judgements_per_summary),
            "block_documents": str(s.block_documents),
            "block_annotators": str(s.block_annotators),
        }

    def table(self, systems: tuple[str, ...] | None = None) -> pd.DataFrame:
        """The planned rows (annotator, document, system, block)."""
        return self.rows

    def group_codes(
        self, system_names: tuple[str, ...]
    ) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, int]]]:
        """System code per row in the order of ``system_names`` and ``{factor: (codes, n_levels)}``."""
        system = pd.Categorical(self.rows["system"], categories=list(system_names)).codes
        if np.any(system < 0):
            unknown = sorted(set(self.rows["system"]) - set(system_names))
            raise DesignError(f"{self.name}: the model does not know the system(s) {', '.join(unknown)}")
        groups = {}
        for factor in ("annotator", "document"):
            codes, levels = pd.factorize(self.rows[factor])
            groups[factor] = (codes, len(levels))
        return np.asarray(system, dtype=np.int64), groups

    @cached_property
    def _units(self) -> dict[str, tuple[np.ndarray, int]]:
        out = {}
        for aggregate, columns in _AGGREGATE_UNITS.items():
            codes = self.rows.groupby(list(columns), sort=False).ngroup().to_numpy()
            out[aggregate] = (codes, int(codes.max()) + 1)
        return out

    def pair_differences(
        self,
        scores: np.ndarray,
        system: np.ndarray,
        n_systems: int,
        aggregate: str,
        pairs: list[tuple[int, int]],
    ) -> list[np.ndarray]:
        """Per pair, the differences of per-unit mean scores over the units where both were judged."""
        codes, n_units = self._units[aggregate]
        index = codes * n_systems + system
        sums = np.bincount(index, weights=scores, minlength=n_units * n_systems).reshape(n_units, n_systems)
        counts = np.bincount(index, minlength=n_units * n_systems).reshape(n_units, n_systems)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        out = []
        for i, j in pairs:
            both = (counts[:, i] > 0) & (counts[:, j] > 0)
            out.append(means[both, i] - means[both, j])
        return out

    def resize(self, factor: str, count: int) -> TableDesign:
        """The design with ``count`` levels of ``factor`` (``blocks``, ``annotators`` or ``documents``).

        Fewer levels keep the first ``count`` in the table's order (as simr's ``powerCurve`` does);
        more levels add copies of the planned ones in turn, with new ids: a copied block brings
        its own annotators and documents, a copied annotator judges the same rows as the original
        (one more annotator per document), a copied document is judged by the same annotators.
        """
        column = {"blocks": "block", "annotators": "annotator", "documents": "document"}.get(factor)
        if column is None:
            raise DesignError(f"unknown factor {factor!r} to vary; use blocks, annotators or documents")
        if isinstance(count, bool) or int(count) != count or count < 1:
            raise DesignError(f"{factor} must be a whole number of at least 1, not {count!r}")
        levels = list(pd.unique(self.rows[column]))
        if count <= len(levels):
            rows = self.rows[self.rows[column].isin(levels[: int(count)])]
        else:
            parts = [self.rows]
            for extra in range(int(count) - len(levels)):
                level, copy = levels[extra % len(levels)], extra // len(levels) + 1
                part = self.rows[self.rows[column] == level].copy()
                renamed = ("annotator", "document") if column == "block" else (column,)
                for name in renamed:
                    part[name] = part[name] + f"~{copy}"
                if column == "block":
                    part["block"] = len(levels) + extra
                parts.append(part)
            rows = pd.concat(parts, ignore_index=True)
        return TableDesign(rows, self.name, self.criterion)


def clmm_data(template: ClmmData, scores: np.ndarray) -> ClmmData:
    """``template`` with simulated ``scores`` (rows in the template's order) as the responses.

    As in :func:`~humaneval.analysis.prepare.prepare_clmm_data`, the observed values become the
    ordered categories (unobserved scale points drop out).
    """
    levels, y = np.unique(scores, return_inverse=True)
    return replace(template, y=y.astype(np.int64), levels=tuple(float(v) for v in levels))


def read_design_table(path: str | Path) -> dict[str, TableDesign]:
    """The designs (one per criterion) of a design CSV written by ``humaneval design``, or of any
    CSV with annotator (or annotator_slot), document and system columns, e.g. a pilot's ratings."""
    path = Path(path)
    if not path.is_file():
        raise DesignError(
            f"{path}: no such file; give a CSV written by 'humaneval design' or blocks=B,docs=D,annotators=A"
        )
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DesignError(f"{path}: cannot read the design table ({exc})") from None
    return TableDesign.from_frame(frame, str(path))
