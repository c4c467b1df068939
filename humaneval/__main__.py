"""``python -m humaneval`` runs the command line."""

from humaneval.cli import main

main()
