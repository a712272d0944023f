"""``python -m roundlab.study``: see :mod:`roundlab.study.cli`."""

from roundlab.study.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
