"""The HEDS 3.0 datasheet of a planned design, with TODO items for what the package cannot know."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.design.datasheet import SECTIONS, plain_text
from humaneval.present.document import Definitions, Paragraph, Section, Styled, text
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    sheet = report.datasheet
    if sheet is None:
        return
    parts = []
    for key, title in SECTIONS:
        fields = sheet["sections"][key]
        todo = fields.get("todo", {})
        items = tuple(
            (
                name.replace("_", " "),
                text(plain_text(value))
                if value is not None
                else text(Styled(f"TODO — {todo.get(name, 'not known to the package')}", "todo")),
            )
            for name, value in fields.items()
            if name != "todo"
        )
        parts.append(Section(title, (Definitions(items),)))
    note = Paragraph(
        text(
            "HEDS 3.0 sections (Belz & Thomson), filled from the planned design; fill in the TODO items "
            "before publishing."
        ),
        "note",
    )
    yield Section("Datasheet", (note, *parts), id="datasheet")
