"""`python -m services.relay`: the same as `cardledger relay`."""

from __future__ import annotations

import sys

from services.cli import main

if __name__ == "__main__":
    sys.exit(main(["relay"]))
