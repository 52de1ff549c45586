"""`python -m services.cli`: the `cardledger` command."""

import sys

from services.cli import main

sys.exit(main())
