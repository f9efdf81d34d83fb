"""Summary statistics shared by the server's metrics and the benchmarks.

One percentile definition for every latency gaji reports (`/api/metrics`, `gaji bench …`), so a p95 means
the same thing wherever it is printed: the nearest-rank percentile, which is always one of the measured
values (no interpolation between two requests that never took that long).
"""
from __future__ import annotations

import math
from typing import Sequence


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of `values`; None when there are none."""
    if not values:
        return None
    s = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(s)))
    return s[min(rank, len(s)) - 1]
