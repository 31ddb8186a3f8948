"""`python -m cribcam` is the `cribcam` command."""

import sys

from cribcam.cli.main import main

sys.exit(main())
