"""How hard hypothesis looks. Modest by default so the suite stays fast; set
`PROPERTY_SCALE=20` (say) for a deep run that multiplies every example count."""

from __future__ import annotations

import os

from hypothesis import settings

SCALE = max(1, int(os.environ.get("PROPERTY_SCALE", "1")))


def budget(max_examples: int, **kwargs: object) -> settings:
    """Settings for a property that costs real server round trips: no deadline, scaled examples."""
    return settings(max_examples=max_examples * SCALE, deadline=None, **kwargs)  # type: ignore[arg-type]
