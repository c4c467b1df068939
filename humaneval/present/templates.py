"""The jinja2 environment over the package's ``templates`` folder (forms, the report page, datasheets)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import jinja2


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The jinja2 environment over the package's ``templates`` folder, autoescaping everything."""
    folder = resources.files("humaneval") / "templates"
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=jinja2.select_autoescape(disabled_extensions=("md.j2",), default=True),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
