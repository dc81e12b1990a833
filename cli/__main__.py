"""``python -m flockgym.cli``: the ``flockgym`` command."""

import sys

from flockgym.cli import main

sys.exit(main())
