"""The cluster's one error and its one requirement, Dask, in a module the package's own modules
import (rather than the package, whose `venue_for` imports the coordinator)."""

from __future__ import annotations

import importlib.util

from referee.errors import CroupierError

#: How to get the extra, for error messages.
INSTALL_HINT = "pip install 'croupier[cluster]'"


class ClusterError(CroupierError):
    """A cluster that cannot be used: Dask missing, a scheduler out of reach, workers that
    cannot run the ladder's bots."""


def require_dask() -> None:
    """Raise ClusterError naming the install command when Dask distributed is missing."""
    try:
        found = importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):  # a broken install, or a module blanked out
        found = False
    if not found:
        raise ClusterError(f"running on a Dask cluster needs Dask: {INSTALL_HINT}")
