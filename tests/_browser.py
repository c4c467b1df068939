"""The chromium the browser tests use (Debian's, never a downloaded one; fixtures in ``conftest.py``)."""

from __future__ import annotations

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch_chromium(playwright):
    """Headless Debian chromium."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
