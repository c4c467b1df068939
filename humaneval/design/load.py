"""One entry point for every way a design arrives: :func:`load_design`."""

from __future__ import annotations

from pathlib import Path
from typing import TypeAlias

import pandas as pd

from humaneval.design.plan import Design
from humaneval.design.table import normalise_table, read_design_csv
from humaneval.errors import DesignError, HumanEvalError
from humaneval.methods import METHODS

DesignLike: TypeAlias = "Design | pd.DataFrame | str | Path"
"""What the stages accept as a design: a :class:`Design`, its table, or a path to either file."""


def load_design(design: DesignLike) -> Design | pd.DataFrame:
    """The validated design of a ``design.json`` / ``design.csv`` path, a table or a :class:`Design`.

    A ``design.json`` manifest is read with its ``<stem>.texts.json`` when present; so is a CSV
    whose manifest ``<stem>.json`` lies beside it (the manifest carries the check definitions and
    the spec, e.g. the scale points). A lone CSV or a DataFrame gives the bare table in canonical
    columns and dtypes. Either way the table must have rows and use one known annotation method.

    Parameters
    ----------
    design : Design, DataFrame, str or Path
        The design, its long table, or the path of its manifest or CSV.

    Returns
    -------
    Design or DataFrame
        The :class:`Design` when a manifest is known, else the canonical design table.

    Raises
    ------
    DesignError
        When the file is missing or not a design, the table is empty, mixes methods or names an
        unknown method, or ``design`` is of another type.

    Examples
    --------
    >>> from humaneval.design import DesignSpec, generate_design, load_design
    >>> design = generate_design(DesignSpec(documents=4, systems=["A", "B"], seed=1, documents_per_block=2,
    ...                                     checks_per_annotator=0, platform="standalone"))
    >>> load_design(design) is design, len(load_design(design.table))  # 4 documents × 2 systems × 3
    (True, 24)
    """
    if isinstance(design, Design):
        table, loaded = design.table, design
    elif isinstance(design, pd.DataFrame):
        table = loaded = normalise_table(design)
    elif isinstance(design, str | Path):
        loaded = _from_path(Path(design))
        table = loaded.table if isinstance(loaded, Design) else loaded
    else:
        raise DesignError(
            f"cannot read a design from {type(design).__name__}; pass a Design, DataFrame or path"
        )
    _validate(table)
    return loaded


def _from_path(path: Path) -> Design | pd.DataFrame:
    manifest = path if path.suffix.lower() == ".json" else path.with_suffix(".json")
    if manifest.exists():
        texts = manifest.with_name(manifest.stem + ".texts.json")
        try:
            return Design.from_json(manifest, texts if texts.exists() else None)
        except HumanEvalError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DesignError(
                f"{manifest}: not a design manifest written by 'humaneval design' "
                f"({type(exc).__name__}: {exc}); write it again with 'humaneval design'"
            ) from None
    if path.suffix.lower() == ".json":
        raise DesignError(f"{path}: no such design manifest; check the path")
    return read_design_csv(path)


def _validate(table: pd.DataFrame) -> None:
    if table.empty:
        raise DesignError("the design table has no rows; pass the design.csv written by 'humaneval design'")
    methods = sorted(set(table["method"]))
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise DesignError(
            f"the design table's method {unknown[0]!r} is unknown; use one of {', '.join(METHODS)}"
        )
    if len(methods) != 1:
        raise DesignError(f"a design uses one method, but the table mixes {methods}; split the design")
