"""Annotation forms (docs/forms.md): presets, texts, rendering and MTurk packaging.

Main entry point: :func:`write_forms` (design + texts → forms on disk). For demos without a
corpus, :func:`placeholder_texts` makes clearly labelled stand-in texts for every design cell.
"""

from humaneval.forms.mturk import MTurkPackage, html_question, write_mturk_package
from humaneval.forms.presets import PRESETS, Preset, get_preset, load_preset
from humaneval.forms.render import render_form
from humaneval.forms.screens import block_payloads, design_frame
from humaneval.forms.texts import Texts, load_texts, placeholder_texts
from humaneval.forms.write import design_payloads, load_design, write_forms

__all__ = [
    "PRESETS",
    "MTurkPackage",
    "Preset",
    "Texts",
    "block_payloads",
    "design_frame",
    "design_payloads",
    "get_preset",
    "html_question",
    "load_design",
    "load_preset",
    "load_texts",
    "placeholder_texts",
    "render_form",
    "write_forms",
    "write_mturk_package",
]
