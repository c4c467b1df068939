"""The registry of platforms (humaneval.core.platforms, issue 35 item 2): one Platform per
platform, asked by the design, the forms and the CLI; platform names appear in string
comparisons only inside the registry."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from humaneval.core.platforms import DEFAULT_PLATFORM, PLATFORMS, Platform, get_platform
from humaneval.design import DesignSpec, generate_design
from humaneval.design.summary import summarize_design
from humaneval.errors import OptionError

ROOT = Path(__file__).resolve().parents[1]
NAMES = re.compile(r"""['"](prolific|mturk|standalone)['"]""")
COMPARISON = re.compile(r"==|!=| in |\bis\b")
REGISTRY = "humaneval/core/platforms.py"


def _comparisons() -> list[str]:
    hits = []
    for path in sorted((ROOT / "humaneval").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAMES.search(line) and COMPARISON.search(line):
                hits.append(f"{rel}:{n}: {line.strip()}")
    return hits


def test_platform_names_are_compared_only_inside_the_registry() -> None:
    assert [hit for hit in _comparisons() if not hit.startswith(REGISTRY)] == []


def test_the_scan_sees_a_comparison() -> None:
    # the scan must see what `grep` sees, or the test above could never fail
    for line in ('if platform == "mturk":', "x in ('prolific', 'standalone')", 'if p != "prolific":'):
        assert NAMES.search(line) and COMPARISON.search(line)
    assert not NAMES.search('if where.forms == "server":')


def test_platforms_are_defined_once() -> None:
    definitions = [
        f"{p.relative_to(ROOT)}"
        for p in (ROOT / "humaneval").rglob("*.py")
        if re.search(r"^PLATFORMS\b.*=", p.read_text(encoding="utf-8"), flags=re.M)
    ]
    assert definitions == [REGISTRY]


def test_registry_records() -> None:
    assert list(PLATFORMS) == ["prolific", "mturk", "standalone"] and DEFAULT_PLATFORM == "prolific"
    assert all(isinstance(p, Platform) and p.name == name for name, p in PLATFORMS.items())
    prolific, mturk = get_platform("prolific"), get_platform("mturk")
    # Prolific's published rules: at least £6.00 / $8.00 an hour, £9.00 / $12.00 recommended
    assert prolific.pay == {"GBP": (9.00, 6.00), "USD": (12.00, 8.00)} and prolific.checks_for_rejection == 2
    assert (prolific.reward_unit, prolific.bonus_unit, mturk.reward_unit) == ("minor", "major", "major")
    assert "2026-07-30" in mturk.note
    assert prolific.load("parser").__name__ == "read_prolific"
    assert mturk.load("client").__name__ == "mturk_client"
    with pytest.raises(OptionError, match="platform 'standalone' has no client"):
        get_platform("standalone").load("client")
    with pytest.raises(
        OptionError, match="platform 'amt' is unknown; choose one of prolific, mturk, standalone"
    ):
        get_platform("amt")


def test_a_new_platform_is_one_record(monkeypatch) -> None:
    """A platform added to the registry is accepted by the design and costed by its own rules."""
    import humaneval.core.platforms as registry

    lab = Platform(
        name="lab",
        title="Lab panel",
        currency="EUR",
        pay={"EUR": (15.0, 12.0)},
        reward_unit="major",
        bonus_unit="major",
        forms="pages",
        form_per="block",
        routes=False,
        completion="none",
    )
    monkeypatch.setattr(registry, "PLATFORMS", {**registry.PLATFORMS, "lab": lab})
    monkeypatch.setattr("humaneval.design.spec.PLATFORMS", registry.PLATFORMS)
    design = generate_design(
        DesignSpec(documents=10, systems=["A", "B"], seed=1, platform="lab", checks_per_annotator=0)
    )
    cost = summarize_design(design).cost
    assert cost.currency == "EUR" and cost.hourly_wage == 15.0
    # rounded up to the cent
    assert cost.reward_per_annotator == math.ceil(round(15.0 * cost.seconds_per_annotator / 36, 6)) / 100
