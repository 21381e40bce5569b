"""``python -m parastudio``: the same command line as the ``parastudio`` script."""

import sys

from parastudio.core.cli import main

sys.exit(main())
