"""``python -m ascendopt.cli``: the ``ascendopt`` command."""

import sys

from ascendopt.cli import main

sys.exit(main())
