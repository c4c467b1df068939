"""What every annotation method declares: the :class:`Method` record and the response kinds.

A method (Likert scale, direct-assessment slider, ranking, best–worst scaling, pairwise
comparison) decides how a design lays out its screens, which answer fields a form records,
what a valid answer is, how an attention check is scored, which ratings table the answers make
and which analysis applies. The design generator, form builder, collectors, server and report
read these facts from the method's :class:`Method` instead of comparing method names, so a new
method is one module (docs/methods.md). This module imports nothing from the rest of the package
except :mod:`humaneval.errors`: every layer may use it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from humaneval.core.docstrings import shared_docs
from humaneval.methods.values import parse_number

Unit = Literal["item", "document", "tuple", "pair"]
CheckPlacement = Literal["screen", "embedded", "padded"]
EntryOrder = Literal["fixed", "latin", "shuffled"]

IMC_LEAD = "This text checks your attention. Please ignore the usual question and"
"""The opening of an instructed-response check on a rating screen."""


@dataclass(frozen=True)
class Method:
    """One annotation method: the facts every stage looks up instead of comparing names.

    Attributes
    ----------
    name : str
        Canonical name, written into design tables, manifests and form payloads.
    title : str
        What the method is, for people.
    aliases : tuple of str
        Other names :func:`~humaneval.methods.get_method` accepts (``"ranking"`` for ``"rank"``).
    unit : {"item", "document", "tuple", "pair"}
        What one screen judges: one summary (rating methods), all summaries of a document
        (ranking), a tuple of summaries (best–worst) or a pair (pairwise).
    field_prefix : str or None
        Prefix of the per-entry answer field (``lk_q0_`` + ``d{i}_s{j}``); None when the
        answer belongs to the screen.
    screen_field_prefix : str or None
        Prefix of the per-screen answer field (``bw_`` + tuple id, ``pw_`` + pair id).
    screen_key : str or None
        Design column that names the screen's tuple or pair (``tuple_id``, ``pair_id``).
    raw_field_prefix : str or None
        Prefix of the raw answer field recorded beside the value (``rkraw_`` for tied ranks).
    response : {"score", "rank"}
        Response kind of the ratings table the answers make.
    table_kind : str
        The ratings-table kind :func:`humaneval.comparative.detect_kind` reports for it.
    analysis : str
        Name of the analysis path that applies by default: ``"clmm"`` (ordinal mixed model on the
        ratings or ranks) or ``"comparative"`` (Bradley–Terry / best–worst counting with a
        clustered bootstrap). The analysis layer looks the name up; this module knows no analysis.
    widget : str
        The widget of ``templates/form.js`` that shows a screen (``{widget}Widget``).
    check_placement : {"screen", "embedded", "padded"}
        Where an attention check sits: its own screen, an extra entry in a real screen, or an
        extra entry padded with real summaries to the screen's size.
    entry_order : {"fixed", "latin", "shuffled"}
        How the entries of a screen are ordered per annotator slot.
    integer : bool
        Whether a collected value must be a whole number.
    gold_checks : bool
        Whether gold (low/high filler) checks exist for the method.
    criteria : bool
        Whether several criteria per screen and the grouped (SummEval) layout apply.
    ties_option : bool
        Whether the form has an ``allow_ties`` option (tied ranks).
    entry_codes : bool
        Whether a screen's answer names an entry by its code (``s{j}``, ``c{c}``).
    standardise : bool
        Whether exports add per-annotator z-scores (direct assessment).
    preset_points : tuple of int or None
        Allowed range of a preset's scale points, when the preset's points are the scale.
    study_seconds : mapping
        Published seconds per screen by dimension, where a study timed the method.
    preset : str or None
        Name of the built-in form preset of a dimension, ``{dimension}`` standing for it;
        None means ``{dimension}-{name}``.
    position_balancing : str
        How the design balances positions on a screen, in the words of the datasheet.
    default_dimension : str
        The dimension a design asks about when none is given (``coherence``; ``preference`` for
        pairwise comparisons, which usually ask which response is better).
    scale_description : str or None
        What the values of the ratings table mean, when they are not points of a rating scale
        (pairwise preferences with ties, best–worst choices); the report shows it as the scale.
    marks_spans : bool
        Whether an answer is the spans marked in the text (a JSON answer, :meth:`read_answer`) and
        the collected answers make a span table (docs/spans.md) rather than a ratings table.
    """

    name: str
    title: str
    unit: Unit
    response: str
    table_kind: str
    analysis: str
    widget: str
    check_placement: CheckPlacement
    aliases: tuple[str, ...] = ()
    field_prefix: str | None = None
    screen_field_prefix: str | None = None
    screen_key: str | None = None
    raw_field_prefix: str | None = None
    entry_order: EntryOrder = "fixed"
    integer: bool = True
    gold_checks: bool = False
    criteria: bool = False
    ties_option: bool = False
    entry_codes: bool = False
    standardise: bool = False
    preset_points: tuple[int, int] | None = None
    study_seconds: Mapping[str, float] = field(default_factory=dict)
    preset: str | None = None
    position_balancing: str = "one summary per screen"
    default_dimension: str = "coherence"
    scale_description: str | None = None
    marks_spans: bool = False

    @property
    def is_comparative(self) -> bool:
        """Whether annotators compare summaries (ranking, best–worst, pairwise) rather than rate one."""
        return self.unit != "item"

    @property
    def rates_items(self) -> bool:
        """Whether every screen rates one summary on a scale (balanced order and warm-ups apply)."""
        return self.unit == "item"

    def preset_name(self, dimension: str) -> str:
        """The name of the built-in form preset of ``dimension`` (``coherence-likert7``)."""
        return (self.preset or "{dimension}-" + self.name).format(dimension=dimension)

    @shared_docs
    def value_range(self, points: int | None = None) -> tuple[float, float] | None:
        """``(low, high)`` of a valid value; ``points`` is the scale of a rating method.

        Parameters
        ----------
        points : int, optional
            %(likert_points)s

        Returns
        -------
        tuple of float or None
            The range, or None where the range depends on the screen (ranks).
        """
        return None

    @shared_docs
    def parse_value(self, value: Any, points: int | None = None) -> float | None:
        """The collected value as a number, or None when it is not a valid value.

        Numbers written as text are read with :func:`parse_number`; a value outside
        :meth:`value_range`, or fractional where :attr:`integer`, is invalid.

        Parameters
        ----------
        value : Any
            The submitted value (text or number).
        points : int, optional
            %(likert_points)s

        Returns
        -------
        float or None
        """
        bounds = self.value_range(points)
        number = parse_number(value)
        if bounds is None or number is None or not bounds[0] <= number <= bounds[1]:
            return None
        if self.integer and number != round(number):
            return None
        return float(number)

    @shared_docs
    def read_answer(self, value: Any, points: int | None = None) -> tuple[float | None, str]:
        """The collected answer as ``(value, raw_value)`` of the export table; value None when invalid.

        Parameters
        ----------
        value : Any
            The submitted answer.
        points : int, optional
            %(likert_points)s

        Returns
        -------
        tuple of (float or None, str)
            :meth:`parse_value` and no raw value, unless the method records more than a number.
        """
        return self.parse_value(value, points), ""

    def check_passed(self, value: Any, expected: str) -> bool:
        """Whether an instructed-response (IMC) check answered ``value`` where ``expected`` was asked.

        Parameters
        ----------
        value : Any
            The collected answer (not missing).
        expected : str
            The instructed answer (``check_expected`` of the design).

        Returns
        -------
        bool
        """
        return str(value) == expected.strip()

    def inject_error(self, text: str, rng: np.random.Generator) -> tuple[str, int, int]:
        """``text`` with a known error inserted, and the error's ``start, end`` character offsets (an
        injected-error check of a span method, docs/spans.md).

        Parameters
        ----------
        text : str
            A text of the study.
        rng : numpy.random.Generator
            The slot's random stream.

        Returns
        -------
        tuple of (str, int, int)
        """
        raise NotImplementedError(f"{self.name} marks no spans: it has no injected-error checks")

    def draw_check_expected(self, rng: np.random.Generator, *, points: int, side: str) -> str:
        """The instructed answer of a new attention check (draws from ``rng`` where it varies).

        Parameters
        ----------
        rng : numpy.random.Generator
            The slot's random stream (the number of draws is part of the design's reproducibility).
        points : int
            Scale points of the design.
        side : str
            ``"A"`` or ``"B"``: where a padded check entry sits.

        Returns
        -------
        str
        """
        raise NotImplementedError(f"{self.name} has no attention check of its own")

    def imc_instruction(self, expected: str) -> str:
        """The instruction the design manifest records for an instructed-response check."""
        raise NotImplementedError(f"{self.name} has no attention check of its own")

    def check_text(self, expected: str, *, best_worst_labels: tuple[str, str], n_entries: int = 1) -> str:
        """The instruction a form shows in place of a summary for an attention check."""
        return "This text checks your attention. Please choose this one, whatever the question says."

    def seconds_per_screen(self, dimension: str, n_systems: int, show_source: bool) -> tuple[float, str]:
        """Published seconds per screen and their source; ``nan`` without a study value.

        Parameters
        ----------
        dimension : str
            The judged dimension (``coherence``, ``repetition``); unknown ones assume coherence.
        n_systems : int
            Systems per document (ranking screens hold all of them).
        show_source : bool
            Whether the source document is shown too.

        Returns
        -------
        tuple of (float, str)
        """
        if not self.study_seconds:
            return math.nan, f"no study timing for {self.name}; give seconds_per_screen from a pilot"
        known = dimension in self.study_seconds
        seconds = self.study_seconds[dimension if known else "coherence"]
        return seconds, f"study value for {self.name} {dimension if known else 'coherence (assumed)'}"


@runtime_checkable
class MethodTable(Protocol):
    """A table of answers that is not a ratings table (a span table), naming the :class:`Method` it
    comes from; :func:`humaneval.analysis.analyze` runs the analysis that method names."""

    @property
    def method(self) -> str: ...
