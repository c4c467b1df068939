"""Person-entity recognisers for the bias measures.

A recogniser is any ``callable(text) -> list[str]`` of PERSON strings. Two are bundled:

- :func:`spacy_persons` wraps a spaCy pipeline (a ``Language`` object or the name/path of an
  installed pipeline package; nothing is downloaded) and returns its ``PERSON`` entities;
- :func:`heuristic_persons` is the labelled fallback: maximal runs of capitalised tokens that
  contain a census first name or follow a title, trimmed to start at that name or title.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from humaneval.errors import BackendUnavailableError
from humaneval.scorers.names import TITLES, census_frequencies

PersonRecognizer = Callable[[str], list[str]]
_CLOSING = ",;:!?\"')]}"


def load_spacy(name: str) -> Any:
    """Load an installed spaCy pipeline by package name or local path; say how to install a missing one."""
    try:
        import spacy
    except ImportError:
        raise BackendUnavailableError("spaCy is not installed: pip install 'humaneval[nlp]'") from None
    try:
        return spacy.load(name)
    except OSError:
        raise BackendUnavailableError(
            f"spaCy pipeline {name!r} is not installed: python -m spacy download {name} "
            "(or pass the path of a pipeline directory)"
        ) from None


def spacy_persons(nlp: Any, label: str = "PERSON") -> PersonRecognizer:
    """A recogniser returning the ``label`` entities of a spaCy pipeline (object or package name)."""
    pipeline = load_spacy(nlp) if isinstance(nlp, str) else nlp

    def recognise(text: str) -> list[str]:
        return [ent.text for ent in pipeline(text).ents if ent.label_ == label]

    recognise.method = f"spacy-{label.lower()}"  # type: ignore[attr-defined]
    return recognise


def heuristic_persons(text: str, titles: Iterable[str] = TITLES) -> list[str]:
    """Capitalised-token runs that contain a census first name or follow a title (labelled heuristic).

    The default ``titles`` are the gendered ones of the bias probes (Mr, Mrs, Ms, Sir); pass others
    (e.g. ``("dr", "prof")``) to catch names after them too.
    """
    known = _census_names()
    title_set = {t.lower() for t in titles}
    found: list[str] = []
    run: list[str] = []

    def close() -> None:
        start = next(
            (i for i, tok in enumerate(run) if tok.lower().rstrip(".") in title_set or tok.upper() in known),
            None,
        )
        if start is not None:
            entity = run[start:]
            if any(tok.lower().rstrip(".") not in title_set for tok in entity):
                found.append(" ".join(entity))
        run.clear()

    for raw in re.findall(r"\S+", text):
        token = raw.rstrip(_CLOSING).lstrip("\"'([{")
        ends_run = token != raw.lstrip("\"'([{") or (
            token.endswith(".") and token.lower().rstrip(".") not in title_set
        )
        token = token.rstrip(".") if token.lower().rstrip(".") not in title_set else token
        if token[:1].isupper() and re.fullmatch(r"[A-Za-z][A-Za-z'-]*\.?", token):
            run.append(token)
        else:
            close()
        if ends_run:
            close()
    close()
    return found


heuristic_persons.method = "heuristic-capitalised-runs"  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=1)
def _census_names() -> frozenset[str]:
    return frozenset(census_frequencies()["name"])
