"""The Prolific collection server (docs/serve.md): study folders, slot assignment,
durable screen-by-screen storage in SQLite, and the Starlette app that ``humaneval serve`` runs.

:func:`create_study` makes a study folder from a design and its texts; :func:`create_app` is the
ASGI app over it; :class:`StudyService` is the same behaviour without HTTP. The export lives in
:mod:`humaneval.collect.prolific`.
"""

from humaneval.serve.app import create_app
from humaneval.serve.service import ApiError, StudyService
from humaneval.serve.study import Study, create_study, open_study, slot_timeout

__all__ = ["ApiError", "Study", "StudyService", "create_app", "create_study", "open_study", "slot_timeout"]
