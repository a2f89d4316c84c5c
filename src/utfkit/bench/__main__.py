"""``python -m utfkit.bench`` runs ``utfkit bench``."""

import sys

from .command import standalone

sys.exit(standalone())
