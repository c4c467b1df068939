"""Model formulas in lme4/ordinal syntax → :class:`~humaneval.clmm.spec.ClmmSpec`.

``rating ~ temp * contact + position + (1 + temp | judge) + (1 | bottle)``: the response is an
ordered column (integer scores, or an ordered categorical); the fixed part is any formula that
`formulaic <https://matthewwardrop.github.io/formulaic/>`_ understands (factors with treatment
contrasts, numeric covariates, ``*`` and ``:`` interactions, ``I(…)``, ``C(…)``); the random part is
any number of bars that this module parses itself:

- ``(1 | g)`` random intercept, ``(1 + x | g)`` / ``(x | g)`` correlated intercept and slopes
  (unstructured Ψ), ``(0 + x | g)`` slopes only;
- ``(x || g)``: the same columns with a *diagonal* Ψ (uncorrelated), each column its own variance;
- ``(1 | g1:g2)``: groups are the combinations of g1 and g2;
- ``(1 | a/b)``: nested, short for ``(1 | a) + (1 | a:b)``.

Bars with the same grouping factor are merged into one term with a block-diagonal Ψ.

A formula cannot run code: before formulaic (or R) sees it, every term is read by this module and
may hold only column names (``` `odd name` ``` in backticks), numbers, the operators
``+ - * / : ^ ** %in%``, parentheses and the functions of :data:`FUNCTIONS` — ``C(column)``,
``I(…)``, ``log``, ``exp``, ``sqrt``, ``scale``, ``center`` over arithmetic of columns and numbers,
``poly(x, degree)``. Anything else (a call of another function, attribute access, a subscript, a
string, a lambda, a dunder name) is refused with one line naming the term, and formulaic evaluates
terms with only these functions in scope.

As in ``ordinal::clmm`` the intercept column of the fixed part is absorbed by the thresholds
(``0 +`` or ``- 1`` make no difference), and coefficients carry R's names: ``tempwarm``,
``contactyes``, ``tempwarm:contactyes``, ``position``. Factor levels are sorted as strings (or kept
in the order of a pandas Categorical); ``reference={"temp": "warm"}`` puts a level first, making
it the reference of the treatment contrasts. Rows with a missing value in a used column are
dropped (R's ``na.omit``).

References
----------
Christensen, R. H. B. (2019). *Cumulative link models for ordinal regression with the R package
ordinal*. https://cran.r-project.org/package=ordinal
Bates, D., Mächler, M., Bolker, B., Walker, S. (2015). Fitting linear mixed-effects models using
lme4. *Journal of Statistical Software* 67(1).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.clmm.scale_spec import ScaleSpec
from humaneval.clmm.spec import ClmmSpec, RandomEffect
from humaneval.errors import InsufficientDataError, ModelSpecError

#: The functions a formula may call: the argument each takes ("arith": arithmetic of columns,
#: numbers and the arithmetic functions; "column": one column name; "poly": arithmetic, then an
#: optional integer degree).
FUNCTIONS = {
    "C": "column",
    "I": "arith",
    "log": "arith",
    "exp": "arith",
    "sqrt": "arith",
    "scale": "arith",
    "center": "arith",
    "poly": "poly",
}
_ARITHMETIC_FUNCTIONS = ("log", "exp", "sqrt")
#: What formulaic may call while it builds a design: these functions and nothing else.
_CONTEXT = {"log": np.log, "exp": np.exp, "sqrt": np.sqrt}
_TOKEN = re.compile(
    r"\s*(?:(?P<quoted>`[^`\n]*`)|(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<op>%in%|\*\*|[-+*/:^(),]))"
)
_FORMULA_OPERATORS = {"+", "-", "*", "/", ":", "^", "**", "%in%"}
_ARITH_OPERATORS = {"+", "-", "*", "/", "**"}

#: Most distinct response values a CLMM is fitted to (beyond that the data are not ordinal).
MAX_LEVELS = 21
_NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.]*$")


@dataclass(frozen=True)
class Bar:
    """One ``(expr | group)`` term: the design expression, the grouping factor and ``||``."""

    expr: str
    group: str
    uncorrelated: bool = False

    @property
    def factors(self) -> tuple[str, ...]:
        """The columns whose combinations form the groups (``a:b`` → ``("a", "b")``)."""
        return tuple(part.strip() for part in self.group.split(":"))

    def __str__(self) -> str:
        return f"({self.expr} {'||' if self.uncorrelated else '|'} {self.group})"


@dataclass(frozen=True)
class ParsedFormula:
    """A formula split into response, fixed part and random bars (``a/b`` already expanded)."""

    response: str
    fixed: str
    bars: tuple[Bar, ...]

    def __str__(self) -> str:
        return " + ".join([f"{self.response} ~ {self.fixed}", *(str(b) for b in self.bars)])

    @property
    def columns(self) -> tuple[str, ...]:
        """The grouping columns used by the bars."""
        return tuple(dict.fromkeys(f for b in self.bars for f in b.factors))

    def with_fixed(self, fixed: str) -> ParsedFormula:
        return ParsedFormula(self.response, fixed, self.bars)


def parse_formula(formula: str) -> ParsedFormula:
    """Split ``formula`` into response, fixed part and bars (module docstring).

    Examples
    --------
    >>> f = parse_formula("rating ~ temp + contact + (1 + temp | judge) + (1 | a/b)")
    >>> f.fixed, [str(b) for b in f.bars]
    ('temp + contact', ['(1 + temp | judge)', '(1 | a)', '(1 | a:b)'])
    """
    if not isinstance(formula, str) or formula.count("~") != 1:
        raise ModelSpecError(
            f"a model formula has one '~', e.g. 'score ~ system + (1 | annotator)'; got {formula!r}"
        )
    lhs, rhs = (part.strip() for part in formula.split("~"))
    if lhs.startswith("`") and lhs.endswith("`") and len(lhs) > 1:
        lhs = lhs[1:-1]
    if not lhs:
        raise ModelSpecError(f"the formula {formula!r} has no response left of '~'")
    if not re.fullmatch(r"[\w .-]+", lhs) or "__" in lhs:
        raise ModelSpecError(
            f"the response {lhs!r} of the formula {formula!r} must be a column name (in backticks if odd)"
        )
    bars: list[Bar] = []
    kept: list[str] = []
    i, depth, start = 0, 0, 0
    pieces: list[tuple[str, bool]] = []  # top-level "+"-separated pieces; True for bars
    sign_error = None
    while i <= len(rhs):
        ch = rhs[i] if i < len(rhs) else "+"
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ModelSpecError(f"unbalanced ')' in the formula {formula!r}")
        elif ch == "+" and depth == 0:
            piece = rhs[start:i].strip()
            pieces.append((piece, _is_bar(piece)))
            start = i + 1
        i += 1
    if depth != 0:
        raise ModelSpecError(f"unbalanced '(' in the formula {formula!r}")
    for piece, is_bar in pieces:
        if is_bar:
            bars.extend(_parse_bar(piece, formula))
        elif "|" in piece:
            sign_error = piece
        elif piece:
            term_names(piece)
            kept.append(piece)
    if sign_error is not None:
        raise ModelSpecError(
            f"cannot read {sign_error!r} in {formula!r}: write random terms as '+ (expr | group)'"
        )
    fixed = " + ".join(kept) if kept else "1"
    return ParsedFormula(lhs, fixed, tuple(bars))


class _Refused(Exception):
    """A term holds something a formula may not (the reason is the message)."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None:
            ch = text[at:].lstrip()[0]
            what = {"'": "a string", '"': "a string", "[": "a subscript", "{": "a brace", "=": "'='"}
            raise _Refused(f"{what.get(ch, repr(ch))} is not allowed")
        kind = match.lastgroup or ""
        token = match.group(kind)
        if kind in ("name", "quoted"):
            bare = token.strip("`")
            if "__" in bare:
                raise _Refused(f"the name {bare!r} is not allowed (no names with '__')")
            if kind == "quoted" and not bare.strip():
                raise _Refused("an empty name `` is not allowed")
        out.append((kind, token))
        at = match.end()
    return out


class _TermReader:
    """Recursive descent over one term's tokens: it only accepts, it never evaluates."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens, self.at = tokens, 0
        self.names: list[str] = []

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self, text: str) -> None:
        if self.peek()[1] != text:
            found = self.peek()[1] or "the end"
            raise _Refused(f"expected {text!r}, found {found!r}")
        self.at += 1

    def expression(self, arith: bool) -> None:
        operators = _ARITH_OPERATORS if arith else _FORMULA_OPERATORS
        self.unary(arith)
        while self.peek()[0] == "op" and self.peek()[1] in operators:
            self.at += 1
            self.unary(arith)

    def unary(self, arith: bool) -> None:
        while self.peek() in (("op", "-"), ("op", "+")):
            self.at += 1
        self.atom(arith)

    def atom(self, arith: bool) -> None:
        kind, text = self.peek()
        self.at += 1
        if kind == "number":
            return
        if kind == "quoted":
            self.names.append(text[1:-1])
            return
        if (kind, text) == ("op", "("):
            self.expression(arith)
            self.take(")")
            return
        if kind != "name":
            raise _Refused(f"{text!r} is not allowed here" if text else "the term ends too soon")
        if self.peek() != ("op", "("):
            if text == "lambda":
                raise _Refused("a lambda is not allowed")
            self.names.append(text)
            return
        allowed = _ARITHMETIC_FUNCTIONS if arith else tuple(FUNCTIONS)
        if text not in allowed:
            raise _Refused(
                f"the function {text}() is not allowed"
                + ("" if arith else f" (allowed: {', '.join(f'{f}()' for f in FUNCTIONS)})")
            )
        self.take("(")
        takes = FUNCTIONS[text]
        if takes == "column":
            if self.peek()[0] not in ("name", "quoted"):
                raise _Refused(f"{text}() takes one column name")
            self.atom(arith=True)
        else:
            self.expression(arith=True)
            if takes == "poly" and self.peek() == ("op", ","):
                self.at += 1
                if self.peek()[0] != "number" or not self.peek()[1].isdigit():
                    raise _Refused("poly()'s degree must be a whole number")
                self.at += 1
        self.take(")")

    def end(self) -> None:
        kind, text = self.peek()
        if kind != "end":
            raise _Refused(f"{text!r} is not allowed here")


def term_names(term: str) -> list[str]:
    """The column names a formula term uses, after checking that it only holds what formulas may.

    Raises
    ------
    ModelSpecError
        The term holds anything but column names, numbers, the formula operators and the functions of
        :data:`FUNCTIONS`; the message names the term.

    Examples
    --------
    >>> term_names("I(x ** 2) + log(`a b`) * C(g)")
    ['x', 'a b', 'g']
    >>> term_names("I(__import__('os').system('id'))")                  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    humaneval.errors.ModelSpecError: the formula term "I(__import__('os').system('id'))" ... not allowed ...
    """
    try:
        reader = _TermReader(_tokens(term))
        reader.expression(arith=False)
        reader.end()
    except _Refused as why:
        raise ModelSpecError(
            f'the formula term "{term.strip()}" is not allowed: {why}; a formula holds column names, '
            f"numbers, + - * / : ^ and the functions {', '.join(FUNCTIONS)} (docs/analysis.md#formulas)"
        ) from None
    return list(dict.fromkeys(reader.names))


def _is_bar(piece: str) -> bool:
    return (
        piece.startswith("(") and piece.endswith(")") and "|" in piece and _matching(piece) == len(piece) - 1
    )


def _matching(text: str) -> int:
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k
    return -1


def _parse_bar(piece: str, formula: str) -> list[Bar]:
    inner = piece[1:-1]
    double = "||" in inner
    expr, _, group = inner.partition("||" if double else "|")
    expr, group = expr.strip(), group.strip()
    if not expr or not group or "|" in group:
        raise ModelSpecError(f"cannot read the random term {piece!r} in {formula!r}; write (1 + x | group)")
    parts = [p.strip() for p in group.split("/")]
    for part in parts:
        for name in part.split(":"):
            if not _NAME.match(name.strip().strip("`")):
                raise ModelSpecError(
                    f"grouping factor {name.strip()!r} in {piece!r} must be a column name (or a:b, a/b)"
                )
    term_names(expr)
    groups = [":".join(parts[: k + 1]) for k in range(len(parts))]
    return [Bar(expr, g, double) for g in groups]  # lme4: (x | a/b) = (x | a) + (x | a:b)


def r_name(column: str, factors: Mapping[str, tuple[str, ...]] | None = None) -> str:
    """formulaic's column name as R's ``model.matrix`` prints it (``temp[T.warm]`` → ``tempwarm``).

    Factor levels reach formulaic as placeholders ``L0``, ``L1``, … (formulaic drops levels whose
    names start with ``__``, such as ``__REFERENCE__``); ``factors`` maps them back.
    """
    if column == "Intercept":
        return "(Intercept)"
    factors = factors or {}

    def level(match: re.Match) -> str:
        var, label = match.group(1), match.group(2)
        if var in factors and re.fullmatch(r"L\d+", label):
            return var + factors[var][int(label[1:])]
        return var + label

    return re.sub(r"([A-Za-z_.][A-Za-z0-9_.]*)\[(?:T\.)?(.*?)\]", level, column)


def encode_factors(frame: pd.DataFrame, factors: Mapping[str, tuple[str, ...]]) -> pd.DataFrame:
    """``frame`` with each factor column coded as the placeholders formulaic sees (``L0``, ``L1``, …).

    Values that are not levels of the fitted model raise :class:`ModelSpecError`.
    """
    out = frame.copy()
    for col, levels in factors.items():
        if col not in out:
            continue
        text = out[col].astype(str)
        codes = pd.Categorical(text, categories=list(levels)).codes
        if np.any(codes < 0):
            bad = text[codes < 0].iloc[0]
            raise ModelSpecError(
                f"{col!r} = {bad!r} is not a level of the fitted model ({', '.join(levels)})"
            )
        out[col] = pd.Categorical.from_codes(codes, categories=[f"L{k}" for k in range(len(levels))])
    return out


def _ordered_response(values: pd.Series, name: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """Category codes and labels of an ordered response (integers, numbers or ordered categories)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        if not values.cat.ordered:
            raise ModelSpecError(
                f"response {name!r} is an unordered categorical; make it ordered "
                "(pd.Categorical(..., ordered=True)) or use integer scores"
            )
        cats = values.cat.remove_unused_categories()
        return np.asarray(cats.cat.codes, dtype=np.int64), tuple(str(c) for c in cats.cat.categories)
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.isna().any():
        bad = values[numeric.isna()].iloc[0]
        raise ModelSpecError(
            f"response {name!r} must be ordered: integer scores or an ordered categorical, "
            f"but it holds {bad!r}"
        )
    levels = np.unique(numeric.to_numpy(dtype=float))
    if levels.size > MAX_LEVELS:
        raise ModelSpecError(
            f"response {name!r} has {levels.size} distinct values; a CLMM needs ordinal categories "
            f"(≤ {MAX_LEVELS}); bin the values first"
        )
    codes = np.searchsorted(levels, numeric.to_numpy(dtype=float))
    return codes.astype(np.int64), tuple(f"{v:g}" for v in levels)


def _code_factors(frame: pd.DataFrame, columns: list[str], reference: Mapping[str, str]) -> dict:
    """Turn text/boolean columns into Categoricals (sorted levels, the reference first)."""
    factors = {}
    for col in columns:
        values = frame[col]
        if isinstance(values.dtype, pd.CategoricalDtype):
            cats = [c for c in values.cat.categories if c in set(values.dropna())]
        elif pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
            cats = sorted(pd.unique(values.dropna()), key=str)
        else:
            if col in reference:
                raise ModelSpecError(
                    f"reference level given for the numeric column {col!r}; "
                    f"use C({col}) in the formula or a text column to treat it as a factor"
                )
            continue
        if col in reference:
            ref = reference[col]
            match = [c for c in cats if str(c) == str(ref)]
            if not match:
                choices = ", ".join(str(c) for c in cats)
                raise ModelSpecError(
                    f"reference level {ref!r} is not a level of {col!r}; choose one of {choices}"
                )
            cats = [match[0], *(c for c in cats if c is not match[0])]
        factors[col] = tuple(str(c) for c in cats)
    return factors


def _variables(expr: str, frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` that a formula expression uses (checked by :func:`term_names`)."""
    names = set(term_names(expr))
    return [c for c in frame.columns if c in names]


def clmm_spec(
    formula: str | ParsedFormula,
    data: pd.DataFrame,
    *,
    reference: Mapping[str, str] | None = None,
    threshold: str = "flexible",
    scale: str | None = None,
) -> ClmmSpec:
    """Build the :class:`ClmmSpec` of ``formula`` on ``data`` (module docstring).

    Parameters
    ----------
    formula:
        lme4/ordinal syntax, e.g. ``"rating ~ temp + contact + (1 | judge)"``.
    data:
        Any data frame holding the columns the formula names.
    reference:
        Reference level per factor column, e.g. ``{"system": "BART"}``.
    threshold:
        ``flexible`` (default), ``equidistant`` or ``symmetric``.
    scale:
        A one-sided scale formula (``"~ annotator"``, ``"~ (1 | annotator)"``):
        :class:`~humaneval.clmm.scale_spec.ScaleSpec`. With it the formula may have no random term.

    Returns
    -------
    ClmmSpec
        Ready for :func:`humaneval.clmm.fit_spec`; it keeps the model frame and the fixed part's
        formulaic spec for predictions and estimated marginal means.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"y": [1, 2, 3, 2, 3, 1], "x": ["a", "b", "b", "a", "b", "a"],
    ...                   "g": [1, 1, 2, 2, 3, 3]})
    >>> clmm_spec("y ~ x + (1 | g)", d).beta_names
    ('xb',)
    """
    parsed = formula if isinstance(formula, ParsedFormula) else parse_formula(formula)
    if not isinstance(data, pd.DataFrame):
        raise ModelSpecError("clmm_spec needs a pandas DataFrame")
    reference = dict(reference or {})
    named = [*term_names(parsed.fixed), *(n for b in parsed.bars for n in term_names(b.expr))]
    used = list(dict.fromkeys([parsed.response, *named, *parsed.columns]))
    missing = [c for c in used if c not in data.columns]
    if missing:
        raise ModelSpecError(
            f"column {missing[0]!r} of the formula is not in the data; "
            f"columns are {', '.join(map(str, data.columns))}"
        )
    fixed_cols = _variables(parsed.fixed, data)
    bar_cols = [c for b in parsed.bars if b.expr not in ("1", "0") for c in _variables(b.expr, data)]
    scale_cols: list[str] = []
    scale_group: str | None = None
    if scale is not None:
        scale_cols, scale_group = scale_columns(scale, data)
        data = categorical_identifiers(data, scale_cols)
        bar_cols = [*bar_cols, *scale_cols]
    extra = [scale_group] if scale_group else []
    used = list(dict.fromkeys([parsed.response, *fixed_cols, *bar_cols, *parsed.columns, *extra]))
    frame = data[used].dropna().reset_index(drop=True).copy()
    if frame.empty:
        raise InsufficientDataError("no complete rows for the columns of the formula")
    unknown = [c for c in reference if c not in used]
    if unknown:
        raise ModelSpecError(f"reference level given for {unknown[0]!r}, which the formula does not use")
    factors = _code_factors(frame, list(dict.fromkeys(fixed_cols + bar_cols)), reference)
    raw, frame = frame, encode_factors(frame, factors)
    y, levels = _ordered_response(frame[parsed.response], parsed.response)
    present = np.unique(y)
    if present.size < 2:
        raise InsufficientDataError(
            f"every {parsed.response} is {levels[present[0]]}; a CLMM needs ≥ 2 categories"
        )
    if present.size < len(levels):  # unobserved categories drop out (one threshold fewer)
        levels = tuple(levels[k] for k in present)
        y = np.searchsorted(present, y).astype(np.int64)

    fixed = _model_matrix(f"1 + {_with_intercept(parsed.fixed)}", frame, data)
    columns = [r_name(c, factors) for c in fixed.columns]
    x_full = np.asarray(fixed, dtype=float)
    keep = [k for k, c in enumerate(columns) if c != "(Intercept)"]
    if np.linalg.matrix_rank(x_full) < x_full.shape[1]:
        aliased = _aliased(x_full, columns)
        raise ModelSpecError(
            f"the fixed effects of {parsed.fixed!r} are not identifiable: {', '.join(aliased)} "
            "is a combination of the other columns; drop or merge terms"
        )
    terms = _random_terms(parsed, frame, raw, factors)
    scale_part = None
    if scale is not None:
        scale_part = scale_spec(scale, frame, raw, factors)
    return ClmmSpec(
        y=y,
        levels=levels,
        x=x_full[:, keep],
        beta_names=tuple(columns[k] for k in keep),
        terms=terms,
        threshold=threshold,
        formula=str(parsed),
        response=parsed.response,
        frame=frame,
        fixed_spec=fixed.model_spec,
        factors=factors,
        scale=scale_part,
    )


def _with_intercept(fixed: str) -> str:
    """The fixed part without ``0 +`` / ``- 1``: as in ``clmm``, the thresholds absorb the intercept."""
    depth, out = 0, []
    for k, ch in enumerate(fixed):
        depth += (ch == "(") - (ch == ")")
        out.append("\0" if depth == 0 and re.match(r"-\s*1(?![\d.])", fixed[k:]) else ch)
    text = re.sub(r"\0\s*1", "", "".join(out))  # only top-level "- 1", not I(x - 1)
    kept = [p.strip() for p in text.split("+") if p.strip() not in ("", "0", "1")]
    return " + ".join(kept) if kept else "1"


def _model_matrix(expr: str, frame: pd.DataFrame, data: pd.DataFrame):
    """formulaic's model matrix (full rank), its errors as one-line :class:`ModelSpecError`."""
    from formulaic import model_matrix

    try:
        return model_matrix(expr, frame, ensure_full_rank=True, context=dict(_CONTEXT))
    except Exception as exc:  # formulaic raises several error types
        missing = re.search(r"`([^`]+)` is not present", str(exc))
        if missing:
            raise ModelSpecError(
                f"column {missing.group(1)!r} of the formula is not in the data; "
                f"columns are {', '.join(map(str, data.columns))}"
            ) from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelSpecError(f"cannot build the design of {expr!r}: {first}") from None


def _aliased(x: np.ndarray, columns: list[str]) -> list[str]:
    """Columns that are linear combinations of earlier ones (R reports them as NA)."""
    out, basis = [], np.zeros((x.shape[0], 0))
    for k, name in enumerate(columns):
        trial = np.column_stack([basis, x[:, k]])
        if np.linalg.matrix_rank(trial) > basis.shape[1]:
            basis = trial
        else:
            out.append(name)
    return out


def _random_terms(
    parsed: ParsedFormula, frame: pd.DataFrame, raw: pd.DataFrame, factors: Mapping[str, tuple[str, ...]]
) -> tuple[RandomEffect, ...]:
    merged: dict[str, list] = {}
    for bar in parsed.bars:
        expr = bar.expr
        mm = _model_matrix(expr, frame, frame)
        z = np.asarray(mm, dtype=float)
        if z.shape[1] == 0:
            raise ModelSpecError(f"the random term {bar} has no columns")
        names = tuple(r_name(c, factors) for c in mm.columns)
        blocks = (1,) * len(names) if bar.uncorrelated else (len(names),)
        merged.setdefault(bar.group, []).append((z, names, blocks))
    terms = []
    for group, parts in merged.items():
        columns = tuple(n for _, names, _ in parts for n in names)
        if len(set(columns)) < len(columns):
            raise ModelSpecError(f"the random terms of {group} repeat a column ({', '.join(columns)})")
        keys = raw[[c.strip() for c in group.split(":")]].astype(str).agg(":".join, axis=1)
        codes, uniques = pd.factorize(keys, sort=True)
        terms.append(
            RandomEffect(
                factor=group,
                codes=codes,
                z=np.column_stack([z for z, _, _ in parts]),
                columns=columns,
                blocks=tuple(b for _, _, blocks in parts for b in blocks),
                levels=tuple(str(u) for u in uniques),
            )
        )
    return tuple(terms)


# -- the scale part of a location–scale CLMM (``clmm_spec(..., scale=...)``) -------------------------


def parse_scale(scale: str) -> tuple[str, str | None]:
    """The fixed part and the random log-scale's grouping factor of a one-sided scale formula.

    Examples
    --------
    >>> parse_scale("~ annotator")
    ('annotator', None)
    >>> parse_scale("~ (1 | annotator)")
    ('1', 'annotator')
    """
    text = str(scale).strip()
    if not text.startswith("~") or "~" in text[1:]:
        raise ModelSpecError(
            f"scale formula {scale!r} must be one-sided, e.g. '~ annotator' or '~ (1 | annotator)'"
        )
    parsed = parse_formula(f"scale {text}")
    if len(parsed.bars) > 1:
        raise ModelSpecError(f"scale formula {scale!r}: at most one random term such as (1 | annotator)")
    group = None
    if parsed.bars:
        bar = parsed.bars[0]
        if bar.expr.strip() != "1" or ":" in bar.group or bar.uncorrelated:
            raise ModelSpecError(
                f"scale formula {scale!r}: only a random intercept (1 | factor) of the log-scale is "
                f"supported, not {bar}"
            )
        group = bar.group.strip()
    if group is None and parsed.fixed.strip() in ("", "0", "1"):
        raise ModelSpecError(
            f"scale formula {scale!r} has no term; e.g. '~ annotator' or '~ (1 | annotator)'"
        )
    return parsed.fixed, group


def scale_columns(scale: str, data: pd.DataFrame) -> tuple[list[str], str | None]:
    """The data columns the scale formula uses: the fixed part's, and the random term's factor."""
    fixed, group = parse_scale(scale)
    names = set(term_names(fixed))
    cols = [c for c in data.columns if c in names]
    missing = [n for n in [*names, *([group] if group else [])] if n not in data.columns]
    if missing:
        raise ModelSpecError(
            f"column {sorted(missing)[0]!r} of the scale formula is not in the data; "
            f"columns are {', '.join(map(str, data.columns))}"
        )
    return cols, group


def categorical_identifiers(data: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``data`` with the integer columns among ``columns`` as factors (levels in numeric order).

    A scale formula names who rates (``~ annotator``); integer annotator ids are identifiers, as
    ``factor(annotator)`` in R, not a covariate. A numeric scale covariate must be a float column.
    """
    ints = [c for c in columns if pd.api.types.is_integer_dtype(data[c])]
    if not ints:
        return data
    out = data.copy()
    for c in ints:
        out[c] = pd.Categorical(out[c], categories=sorted(pd.unique(out[c].dropna())))
    return out


def scale_spec(
    scale: str, frame: pd.DataFrame, raw: pd.DataFrame, factors: Mapping[str, tuple[str, ...]]
) -> ScaleSpec:
    """The :class:`ScaleSpec` of ``scale`` on the model frame (factors coded as in the location part)."""
    fixed, group = parse_scale(scale)
    mm = _model_matrix(f"1 + {_with_intercept(fixed)}", frame, frame)
    columns = [r_name(c, factors) for c in mm.columns]
    w_full = np.asarray(mm, dtype=float)
    keep = [k for k, c in enumerate(columns) if c != "(Intercept)"]
    random = None
    if group is not None:
        codes, uniques = pd.factorize(raw[group].astype(str), sort=True)
        random = RandomEffect(
            group, codes, np.ones(len(frame)), ("(Intercept)",), levels=tuple(str(u) for u in uniques)
        )
        if random.n_groups < 3:
            raise ModelSpecError(
                f"a random log-scale needs at least 3 levels of {group!r}, not {random.n_groups}; "
                f"use fixed scale effects ('~ {group}')"
            )
    return ScaleSpec(
        formula=str(scale).strip(),
        w=w_full[:, keep],
        names=tuple(columns[k] for k in keep),
        random=random,
        fixed_spec=mm.model_spec if keep else None,
    )
