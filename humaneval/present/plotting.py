"""Saving figures for papers, and the colour-blind-safe colours every figure of the package uses.

:func:`save_figure` writes a matplotlib figure as PNG (for the HTML report), SVG and PDF (for
papers) beside each other, with embedded TrueType fonts in the PDF (``pdf.fonttype`` 42, which
journals' production systems accept) and no timestamps, so the same figure gives the same bytes.

Colours avoid red/green contrasts: :data:`DIVERGING` is ColorBrewer's PuOr (orange = low/worse,
purple = high/better; safe for the common colour-vision deficiencies), :data:`BETTER` and
:data:`WORSE` are its end colours, :data:`CATEGORICAL` is the Okabe & Ito (2008) palette.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

#: Formats :func:`save_figure` writes, the first being the one the HTML report shows.
FORMATS = ("png", "svg", "pdf")
#: Diverging colour map for signed quantities and ordered categories (low → orange, high → purple).
DIVERGING = "PuOr"
BETTER, WORSE, NEUTRAL = "#5e3c99", "#e66101", "#e0e0e0"
#: Okabe & Ito's colour-blind-safe palette (black left out).
CATEGORICAL = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")
#: Font sizes (points) for tick labels and axis labels.
TICK_SIZE, LABEL_SIZE = 10, 11

_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
}


def save_figure(fig, path: str | Path, *, dpi: int = 150, formats=FORMATS) -> dict[str, Path]:
    """Write ``fig`` to ``path`` and beside it in every other format of ``formats`` (same stem).

    Parameters
    ----------
    fig
        A matplotlib :class:`~matplotlib.figure.Figure`.
    path
        The main file; its suffix picks its format (``plot.png`` also writes ``plot.svg`` and
        ``plot.pdf``).
    dpi
        Resolution of the raster formats.

    Returns
    -------
    dict
        Format (``"png"``, ``"svg"``, ``"pdf"``, or the main file's suffix) → path written.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> import tempfile
    >>> fig = Figure(); _ = fig.add_subplot().plot([0, 1])
    >>> sorted(save_figure(fig, Path(tempfile.mkdtemp()) / "line.png"))
    ['pdf', 'png', 'svg']
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    main = path.suffix.lower().lstrip(".") or "png"
    targets = {main: path if path.suffix else path.with_suffix(".png")}
    targets.update({f: path.with_suffix("." + f) for f in formats if f != main})
    with matplotlib.rc_context({"pdf.fonttype": 42, "svg.hashsalt": "humaneval"}):
        for fmt, target in targets.items():
            fig.savefig(
                target,
                format=fmt,
                dpi=dpi,
                bbox_inches="tight",
                facecolor="white",
                metadata=_METADATA.get(fmt),
            )
    return targets
