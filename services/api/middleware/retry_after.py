"""How long a caller told 429 must wait: read from the rate limiter of the current app."""

from __future__ import annotations

import math
import time

from flask import current_app
from flask_limiter import Limiter


def retry_after_seconds() -> int:
    """Whole seconds until the breached limit of this request admits a hit again (at least 1): the moving
    window frees a place when its oldest hit leaves it."""
    limiter = current_app.extensions.get("limiter")
    limiters = limiter if isinstance(limiter, set) else {limiter}
    for each in limiters:
        if isinstance(each, Limiter) and each.current_limit is not None:
            reset_time, _ = each.current_limit.window
            return max(1, math.ceil(reset_time - time.time()))
    return 1
