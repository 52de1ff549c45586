import sys

from services.cli.simulate.command import main

sys.exit(main())
