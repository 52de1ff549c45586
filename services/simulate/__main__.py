import sys

from services.simulate.command import main

sys.exit(main())
