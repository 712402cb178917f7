"""`python -m pipelines.atlas` is `python -m pipelines.cli atlas` (see its --help)."""

import sys

from pipelines.cli import main

if __name__ == "__main__":
    sys.exit(main(["atlas", *sys.argv[1:]]))
