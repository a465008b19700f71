"""``python -m sparring``: the command line."""

from sparring.cli import main

if __name__ == "__main__":
    main()
