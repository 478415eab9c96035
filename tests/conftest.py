from __future__ import annotations

import os

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
