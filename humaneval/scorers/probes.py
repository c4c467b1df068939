"""Controlled bias probes: fill person slots of templates with names by group (dissertation ch. 6).

A template marks person slots with a number: ``{name1}`` (first and last name), ``{first1}``,
``{last1}``, and group-dependent words such as ``{he1}``, ``{his1}``, ``{He1}`` (capitalised),
looked up in ``group_words`` (defaults for female/male: she/he, her/him, her/his, herself/himself,
woman/man, Ms./Mr.). Each template is one cluster (an "original document"); each of
``n_samples`` name draws is one sample, in which slot j gets one first name per group and one last
name, so that the variants of a sample differ only in the group assignment:

- ``single``: every slot from the same group, once per group (group = that group);
- ``balanced``: groups assigned to slots round-robin, plus every rotation of that assignment
  (group = "mixed"), so each group fills each slot equally often within a sample.

The rows carry the ``entities`` needed by :func:`humaneval.scorers.bias.bias_report`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from humaneval.errors import OptionError, RatingsError
from humaneval.scorers.names import GROUPS, top_first_names

GROUP_WORDS: dict[str, dict[str, str]] = {
    "female": {"he": "she", "him": "her", "his": "her", "himself": "herself", "man": "woman", "mr": "Ms."},
    "male": {"he": "he", "him": "him", "his": "his", "himself": "himself", "man": "man", "mr": "Mr."},
}
"""Group-dependent words for template slots, keyed by the male form."""

LAST_NAMES: tuple[str, ...] = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson", "Taylor",
    "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris", "Clark", "Lewis", "Robinson",
)  # fmt: skip
"""Common US surnames used when no last names are given."""

_SLOT = re.compile(r"\{([A-Za-z]+)(\d+)\}")


def _fill(template: str, names: dict[int, tuple[str, str]], groups: dict[int, str], words: Mapping) -> str:
    def replace(match: re.Match) -> str:
        key, slot = match.group(1), int(match.group(2))
        first, last = names[slot]
        if key == "name":
            return f"{first} {last}"
        if key == "first":
            return first
        if key == "last":
            return last
        table = words[groups[slot]]
        if key.lower() not in table:
            raise RatingsError(
                f"template slot {{{key}{slot}}}: no word {key.lower()!r} for group {groups[slot]!r}"
            )
        word = table[key.lower()]
        return word[0].upper() + word[1:] if key[0].isupper() else word

    return _SLOT.sub(replace, template)


def make_probes(
    templates: Sequence[str],
    first_names: Mapping[str, Sequence[str]] | None = None,
    last_names: Sequence[str] = LAST_NAMES,
    *,
    n_samples: int = 10,
    variants: Sequence[str] = ("single", "balanced"),
    group_words: Mapping[str, Mapping[str, str]] = GROUP_WORDS,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Counterfactual probe inputs: columns cluster, sample, variant, assignment, group, source, entities.

    ``first_names`` maps each group to its candidate first names (default: the 100 most frequent
    unambiguous census names per gender); names are drawn without replacement within a sample.
    """
    first_names = first_names or {g: top_first_names(g, 100) for g in GROUPS}
    groups = list(first_names)
    unknown = set(variants) - {"single", "balanced"}
    if unknown:
        raise OptionError(f"unknown probe variant(s) {sorted(unknown)}; use single and/or balanced")
    rng = np.random.default_rng(seed)
    rows = []
    for t, template in enumerate(templates):
        slots = sorted({int(s) for _, s in _SLOT.findall(template)})
        if not slots:
            raise RatingsError(f"template {t} has no person slot such as {{name1}}")
        for g in groups:
            if len(first_names[g]) < len(slots):
                raise RatingsError(
                    f"group {g!r} has {len(first_names[g])} first names for {len(slots)} slots"
                )
        if len(last_names) < len(slots):
            raise RatingsError(f"{len(last_names)} last names for {len(slots)} slots; pass more last names")
        for sample in range(n_samples):
            firsts = {g: rng.choice(len(first_names[g]), size=len(slots), replace=False) for g in groups}
            lasts = rng.choice(len(last_names), size=len(slots), replace=False)
            assignments = []
            if "single" in variants:
                assignments += [(g, [g] * len(slots)) for g in groups]
            if "balanced" in variants:
                start = int(rng.integers(len(groups)))
                for shift in range(len(groups)):
                    order = [groups[(start + shift + j) % len(groups)] for j in range(len(slots))]
                    assignments.append(("mixed", order))
            for group, order in assignments:
                slot_groups = dict(zip(slots, order, strict=True))
                names = {
                    s: (first_names[slot_groups[s]][firsts[slot_groups[s]][j]], last_names[lasts[j]])
                    for j, s in enumerate(slots)
                }
                rows.append(
                    {
                        "cluster": f"t{t}",
                        "sample": str(sample),
                        "variant": "single" if group != "mixed" else "balanced",
                        "assignment": ",".join(order),
                        "group": group,
                        "source": _fill(template, names, slot_groups, group_words),
                        "entities": [
                            {"slot": s, "first": names[s][0], "last": names[s][1], "group": slot_groups[s]}
                            for s in slots
                        ],
                    }
                )
    return pd.DataFrame(rows)
