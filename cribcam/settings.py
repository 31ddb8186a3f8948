"""Settings shared by the command line and the web server.

Light enough for every command to import: the command line builds its parser from every
``cribcam.cli`` module, and importing anything under ``cribcam.web`` loads Flask. A default
both sides use is defined here once, and each side imports it.
"""

from __future__ import annotations

# Request threads of `cribcam serve` (waitress). More than the photos read at once
# (``CONCURRENT_READS`` in cribcam.web's defaults), so typed counts never wait behind photos.
DEFAULT_THREADS = 8
