"""``python -m roundlab.sweep``: see :mod:`roundlab.sweep.cli`."""

from roundlab.sweep.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
