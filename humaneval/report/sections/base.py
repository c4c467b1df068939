"""What a section builder receives: the report, and a canvas that writes its figures."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd

from humaneval.core.ratings import Ratings, select_criterion
from humaneval.present.document import Block, Figure, Section, Text
from humaneval.report.build import CriterionReport, StudyReport
from humaneval.report.figures import css_width

FIGURE_FORMATS = ("svg", "pdf")


@dataclass
class Canvas:
    """The folder the report is written to; :meth:`figure` draws a figure there and records its files."""

    out: Path
    files: dict[str, Path] = field(default_factory=dict)

    def figure(self, key: str, draw: Callable[[Path], Path], alt: str, caption: Text) -> Figure:
        """Draw ``draw(out / (key + ".png"))`` (PNG with SVG and PDF twins) and describe it."""
        path = draw(self.out / f"{key}.png")
        self.files[key] = path
        self.files.update({f"{key}.{fmt}": path.with_suffix(f".{fmt}") for fmt in FIGURE_FORMATS})
        return Figure(path.name, alt, caption, css_width(path))

    def figure_names(self) -> list[str]:
        """The PNG files drawn so far, in order."""
        return [p.name for k, p in self.files.items() if p.suffix == ".png"]


@dataclass(frozen=True, eq=False)
class CriterionView:
    """One criterion's results as its section builders see them; ``index`` counts from 1."""

    report: StudyReport
    part: CriterionReport
    index: int
    canvas: Canvas

    @cached_property
    def table(self) -> pd.DataFrame:
        return self.part.table

    @property
    def fit(self) -> Any:
        """The criterion's fitted model: a CLMM :class:`~humaneval.clmm.result.FitResult` or a comparative
        fit (both name their structure, link, engine, formula and diagnostics)."""
        return self.part.analysis.fit

    @property
    def order(self) -> list[str]:
        """The systems, best first."""
        return list(self.table["system"])

    @property
    def stem(self) -> str:
        """The suffix of this criterion's figure files (``-coherence``; empty without a criterion column)."""
        name = self.part.criterion
        return "" if name is None else "-" + "".join(c if c.isalnum() else "_" for c in name)

    @property
    def ratings(self) -> Ratings:
        return select_criterion(self.report.ratings, self.part.criterion)

    def figure(self, name: str, draw: Callable[[Path], Path], alt: str, caption: Text) -> Figure:
        return self.canvas.figure(name + self.stem, draw, alt, caption)


#: A study section: the sections it adds (none when it does not apply).
SectionBuilder: TypeAlias = Callable[[StudyReport, Canvas], Iterable[Section]]
#: A part of each criterion's results section: its blocks (none when it does not apply).
CriterionPart: TypeAlias = Callable[[CriterionView], Iterable[Block]]
