"""`python -m services.projector`: the same as `cardledger worker`."""

from __future__ import annotations

import sys

from services.cli import main

if __name__ == "__main__":
    sys.exit(main(["worker"]))
