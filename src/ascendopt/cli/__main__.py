"""``python -m ascendopt.cli``: the ``ascendopt`` command."""

import sys

from ascendopt.cli import main

if __name__ == "__main__":  # importing the module (e.g. to list modules) runs nothing
    sys.exit(main())
