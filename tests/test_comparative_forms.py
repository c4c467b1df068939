"""Best–worst MTurk forms fit the 64 KB HTMLQuestion limit, and check tuples look like real ones."""

from __future__ import annotations

import json
import random
import re

import pytest

from humaneval.design import DesignSpec, generate_design
from humaneval.forms import Texts, write_forms
from humaneval.forms.mturk import MAX_QUESTION_BYTES
from humaneval.forms.render import render_form, shared_screens

WORDS = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "that",
    "is",
    "was",
    "for",
    "on",
    "with",
    "as",
    "by",
    "at",
    "from",
    "government",
    "minister",
    "police",
    "said",
]


def cnn_dm_texts(design, seed: int = 1) -> Texts:
    """Summaries of CNN/DM length (about 60 words, 400 characters) for every document and system."""
    rng = random.Random(seed)
    return Texts(
        {
            (d, s): " ".join(rng.choice(WORDS) for _ in range(62)).capitalize() + "."
            for d in design.documents
            for s in design.systems
        }
    )


def bws_design(**options):
    spec = DesignSpec(
        documents=10, systems=["A", "B", "C", "D", "E"], method="bws", platform="mturk", seed=1, **options
    )
    return generate_design(spec)


def test_default_bws_hits_of_cnn_dm_summaries_fit_the_question_limit(tmp_path):
    design = bws_design()
    package = write_forms(design, cnn_dm_texts(design), tmp_path / "forms")
    sizes = [len(p.read_bytes()) for p in (tmp_path / "forms" / "hits").glob("*/question.xml")]
    assert len(sizes) == 6 and max(sizes) < MAX_QUESTION_BYTES
    assert max(sizes) < 60_000  # margin for longer summaries
    assert len(package.hits) == 6  # one HIT per annotator slot: 2 blocks × 3 slots


def test_shared_screens_expand_to_the_original_payload():
    from humaneval.forms import design_payloads

    design = bws_design()
    _, payloads = design_payloads(design, cnn_dm_texts(design))
    payload = payloads["b000"]
    compact = shared_screens(payload)
    assert len(json.dumps(compact)) < 0.7 * len(json.dumps(payload))
    # what templates/form.js does on load
    for slot, original in zip(compact["slots"], payload["slots"], strict=True):
        expanded = []
        for screen in slot["screens"]:
            if "ref" in screen:
                base = compact["shared"][screen["ref"]]
                screen = {
                    **base,
                    "id": screen["id"],
                    "entries": [base["entries"][k] for k in screen["order"]],
                }
            expanded.append(screen)
        assert expanded == original["screens"]
    html = render_form(payload)
    embedded = re.search(r'id="hx-payload">(.*?)</script>', html, re.S).group(1)
    assert json.loads(embedded)["shared"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bws_check_tuples_show_summaries_of_one_document(seed):
    design = generate_design(
        DesignSpec(documents=10, systems=list("ABCDE"), method="bws", checks_per_annotator=2, seed=seed)
    )
    table = design.table
    check_screens = table[table["is_check"]].groupby(["annotator_slot", "position"])
    for _, screen in check_screens:
        documents = set(screen.loc[screen["system"] != "", "document"])
        assert len(documents) == 1 and len(screen) == 4
