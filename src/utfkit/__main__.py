"""``python -m utfkit`` runs the ``utfkit`` command."""

import sys

from .cli import main

sys.exit(main())
