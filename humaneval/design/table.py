"""The long design table: one row per planned judgement (docs/design.md).

Columns, in this order: ``design_id``, ``annotator_slot`` (``b007-a2``), ``block`` (0-based),
``position`` (0-based screen index in the slot's sequence), ``screen_id`` (``s{position:03d}``),
``display_pos`` (0-based, top/left first), ``document``, ``system`` (both empty for stand-alone
check screens), the booleans ``is_reference``, ``is_check``, ``is_warmup``, ``is_anchor_repeat``,
``screen_has_check``, then ``check_kind``, ``check_expected``, ``method``, ``dimension``,
``tuple_id`` (``t{n}``, BWS), ``pair_id`` (``p{n}``, pairwise), ``opponent`` (BWS/pairwise),
``field`` (form field name of docs/design.md) and ``round``.

In the CSV, booleans are written ``true``/``false`` and absent strings as empty cells; in memory
string columns hold ``""`` (never NA) so a table survives CSV and JSON unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humaneval.errors import DesignError
from humaneval.io.tables import file_kind

DESIGN_COLUMNS: tuple[str, ...] = (
    "design_id",
    "annotator_slot",
    "block",
    "position",
    "screen_id",
    "display_pos",
    "document",
    "system",
    "is_reference",
    "is_check",
    "is_warmup",
    "is_anchor_repeat",
    "screen_has_check",
    "check_kind",
    "check_expected",
    "method",
    "dimension",
    "tuple_id",
    "pair_id",
    "opponent",
    "field",
    "round",
)
INT_COLUMNS: tuple[str, ...] = ("block", "position", "display_pos", "round")
BOOL_COLUMNS: tuple[str, ...] = (
    "is_reference",
    "is_check",
    "is_warmup",
    "is_anchor_repeat",
    "screen_has_check",
)
STR_COLUMNS: tuple[str, ...] = tuple(c for c in DESIGN_COLUMNS if c not in INT_COLUMNS + BOOL_COLUMNS)


def slot_name(block: int, k: int) -> str:
    """Annotator slot ``b{block:03d}-a{k}`` (block 0-based, k = 1..a)."""
    return f"b{block:03d}-a{k}"


def screen_name(position: int) -> str:
    """Screen id ``s{position:03d}`` of the 0-based position in a slot's sequence."""
    return f"s{position:03d}"


def normalise_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Put a design table into canonical column order and dtypes (int64, bool, str without NA)."""
    missing = [c for c in DESIGN_COLUMNS if c not in frame]
    if missing:
        raise DesignError(f"design table lacks the columns {missing}; it must have {list(DESIGN_COLUMNS)}")
    out = {}
    for column in DESIGN_COLUMNS:
        values = frame[column]
        if column in INT_COLUMNS:
            out[column] = values.astype("int64")
        elif column in BOOL_COLUMNS:
            out[column] = values.map(_as_bool).astype(bool)
        else:
            out[column] = values.astype(object).where(values.notna(), "").astype(str)
    return pd.DataFrame(out).reset_index(drop=True)


def _as_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "1"}:
        return True
    if text in {"false", "0", ""}:
        return False
    raise DesignError(f"boolean design column holds {value!r}; write true or false")


def write_design_csv(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a design table as UTF-8 CSV with a header, RFC 4180 quoting and ``true``/``false``."""
    path = Path(path)
    table = normalise_table(frame)
    for column in BOOL_COLUMNS:
        table[column] = table[column].map({True: "true", False: "false"})
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False, encoding="utf-8", lineterminator="\n")
    return path


def read_design_csv(path: str | Path) -> pd.DataFrame:
    """Read a CSV written by :func:`write_design_csv` back with canonical dtypes.

    Raises
    ------
    DesignError
        A missing, empty, non-UTF-8 or non-CSV file, or a table without the design columns.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humaneval.design import DesignSpec, generate_design
    >>> design = generate_design(DesignSpec(documents=4, systems=["A", "B"], seed=1,
    ...                                     documents_per_block=2, platform="standalone"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_design_csv(design.table, Path(folder) / "design.csv")
    ...     read_design_csv(path).equals(design.table)
    True
    """
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except FileNotFoundError:
        raise DesignError(f"{path}: no such file; check the path") from None
    except pd.errors.EmptyDataError:
        raise DesignError(f"{path}: the file is empty; give the CSV written by 'humaneval design'") from None
    except UnicodeDecodeError as exc:
        why = file_kind(path) or f"byte {exc.start} is not valid UTF-8; save the file as UTF-8"
        raise DesignError(f"{path}: {why}") from None
    except pd.errors.ParserError:
        raise DesignError(f"{path}: not a CSV; give the design.csv written by 'humaneval design'") from None
    missing = [c for c in DESIGN_COLUMNS if c not in frame]
    if missing:
        raise DesignError(
            f"{path}: not a design table (no column {', '.join(missing[:3])}"
            f"{' ...' if len(missing) > 3 else ''}); give the design.csv written by 'humaneval design'"
        )
    return normalise_table(frame)
