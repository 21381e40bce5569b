import sys

from parastudio.core.cli import main

sys.exit(main())
