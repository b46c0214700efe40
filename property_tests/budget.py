"""How hard hypothesis looks. Modest by default so the suite stays fast; set
`PROPERTY_SCALE=20` (say) for a deep run that multiplies every example count."""

from __future__ import annotations

import os

from hypothesis import settings

SCALE = max(1, int(os.environ.get("PROPERTY_SCALE", "1")))

# On CI the same examples every run (no random seed, no example database): a red CI must be a
# defect that reruns the same way, not a draw. Wide random exploration is `make property-deep`.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")


def budget(max_examples: int, **kwargs: object) -> settings:
    """Settings for a property that costs real server round trips: no deadline, scaled examples."""
    return settings(max_examples=max_examples * SCALE, deadline=None, **kwargs)  # type: ignore[arg-type]
