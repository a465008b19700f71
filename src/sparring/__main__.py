"""``python -m sparring``: the command line."""

from sparring.cli import main

main()
