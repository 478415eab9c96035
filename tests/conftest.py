from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# Example counts are tuned so that `make test` stays well under ten minutes on two cores;
# CROUPIER_HYPOTHESIS=thorough runs ten times as many.
settings.register_profile(
    "default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("CROUPIER_HYPOTHESIS", "default"))

# `croupier ladder verify` notes the records it replayed in the user's cache: tests keep their own.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="croupier-tests-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)
