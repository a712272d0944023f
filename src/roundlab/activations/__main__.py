"""Regenerate (or check) the files derived from the activation catalogue.

    python -m roundlab.activations --write    # rewrite conf/activation/*.yaml and README's table
    python -m roundlab.activations --check    # exit 1 naming every file that differs

The files are those of the source checkout (``src/roundlab/conf``, ``roundlab.paths.CONF_DIR``,
and the README.md at the checkout's root): from an installed wheel both commands stop with one
line saying a checkout is needed.
"""

from __future__ import annotations

import argparse
import sys

from roundlab.activations.generated_files import stale_files, write_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m roundlab.activations", description=__doc__.splitlines()[0]
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="rewrite the generated files")
    action.add_argument("--check", action="store_true", help="exit 1 if any file differs")
    args = parser.parse_args(argv)
    try:
        if args.write:
            for path in write_files():
                print(f"wrote {path}")
            return 0
        stale = stale_files()
    except FileNotFoundError as err:
        print(f"python -m roundlab.activations: {err}", file=sys.stderr)
        return 2
    for path in stale:
        print(f"differs from the catalogue: {path}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
