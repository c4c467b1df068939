"""First-name gender from the 1990 US census lists shipped with the package.

The lists (``humaneval/data/census/dist.{female,male}.first.gz``, public domain) give each name's
frequency in percent. A name in one list takes that list's gender; a name in both goes to the
gender whose frequency is at least twice the other's (``f_a ≥ 2·f_b``; ``strict=True`` uses ``>``,
as the thesis' reference code), otherwise it is ambiguous and dropped from both. An entity (titles
removed, tokens uppercased) is male if a token is in the resolved male list, female if one is in
the female list; tokens in both lists or in neither leave it unclassified (None).
"""

from __future__ import annotations

import functools
import gzip
import importlib.resources
from collections.abc import Iterable, Mapping

import pandas as pd

TITLES = frozenset({"mr", "mrs", "ms", "sir"})
"""Default titles for entity alignment and classification (compared lowercased, trailing '.' ignored)."""

GROUPS = ("female", "male")


def census_frequencies() -> pd.DataFrame:
    """The census lists as one table: name (uppercase), female, male (percent; 0 when absent)."""
    columns = {}
    for group in GROUPS:
        resource = importlib.resources.files("humaneval").joinpath(f"data/census/dist.{group}.first.gz")
        with resource.open("rb") as handle:
            lines = gzip.decompress(handle.read()).decode("ascii").splitlines()
        columns[group] = {parts[0]: float(parts[1]) for parts in (line.split() for line in lines) if parts}
    names = sorted(set(columns["female"]) | set(columns["male"]))
    return pd.DataFrame(
        {
            "name": names,
            "female": [columns["female"].get(n, 0.0) for n in names],
            "male": [columns["male"].get(n, 0.0) for n in names],
        }
    )


@functools.lru_cache(maxsize=2)
def first_name_genders(strict: bool = False) -> dict[str, str]:
    """Resolved census lists: uppercase first name → "female" / "male"; ambiguous names are absent."""
    table = census_frequencies()
    out = {}
    for name, female, male in zip(table["name"], table["female"], table["male"], strict=True):
        if strict:
            female_wins, male_wins = female > 2 * male, male > 2 * female
        else:
            female_wins, male_wins = female >= 2 * male, male >= 2 * female
        if female_wins != male_wins:
            out[name] = "female" if female_wins else "male"
    return out


def strip_title(token: str, titles: Iterable[str] = TITLES) -> str | None:
    """``token`` without surrounding punctuation, or None when it is a title."""
    bare = token.strip(".,;:!?\"'()")
    return None if bare.lower().rstrip(".") in set(titles) else bare


def classify_person(
    entity: str,
    *,
    table: Mapping[str, str] | None = None,
    strict: bool = False,
    titles: Iterable[str] = TITLES,
) -> str | None:
    """Group of a person entity: the user ``table`` (full entity string, then each token;
    case-insensitive) first, then the census rule; None when unclassified."""
    tokens = [t for t in (strip_title(tok, titles) for tok in entity.split()) if t]
    if table:
        lookup = {str(k).lower(): v for k, v in table.items()}
        for key in [" ".join(tokens).lower(), *(t.lower() for t in tokens)]:
            if key in lookup:
                return lookup[key]
    genders = first_name_genders(strict)
    found = {genders[t.upper()] for t in tokens if t.upper() in genders}
    return found.pop() if len(found) == 1 else None


def top_first_names(group: str, n: int = 100, strict: bool = False) -> list[str]:
    """The ``n`` most frequent unambiguous census first names of ``group``, title-cased."""
    table = census_frequencies()
    genders = first_name_genders(strict)
    table = table[[genders.get(name) == group for name in table["name"]]]
    return [name.title() for name in table.sort_values(group, ascending=False, kind="stable")["name"][:n]]
