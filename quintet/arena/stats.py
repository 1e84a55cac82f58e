"""Statistics: a mean with its 95% confidence interval.

The interval is mean ± q·sd/√n with q = 1.96 for n ≥ 30 and Student's t quantile (n - 1
degrees of freedom) below that; it is "clear" when it excludes 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

JSON = dict[str, Any]

#: Student's t 0.975 quantile for 1..29 degrees of freedom.
_T975: Final = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452,
)  # fmt: skip
_Z975: Final = 1.96


@dataclass(frozen=True)
class Summary:
    """Mean of ``n`` values with its 95% confidence interval (None when n < 2).

    ``clear`` says the interval excludes 0.
    """

    n: int
    mean: float
    sd: float | None
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        """The interval's half width."""
        return None if self.low is None or self.high is None else (self.high - self.low) / 2

    @property
    def clear(self) -> bool:
        """Whether the interval lies wholly on one side of zero."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def to_json(self) -> JSON:
        """Return the summary as JSON."""
        return {
            "n": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "ci95": None if self.low is None else [self.low, self.high],
            "clear_of_zero": self.clear,
        }


def t_quantile(n: int) -> float:
    """Return the 95% two-sided quantile for a mean of ``n`` values (t below 30, else z)."""
    if n < 2:
        return math.inf
    return _T975[n - 2] if n < 30 else _Z975


def summarize(values: Sequence[float]) -> Summary:
    """Return the mean of ``values`` with its 95% confidence interval.

    Raises:
        ValueError: no values.

    >>> s = summarize([2.0, 4.0, 6.0, 8.0])
    >>> s.mean, round(s.sd, 4), [round(x, 3) for x in (s.low, s.high)], s.clear
    (5.0, 2.582, [0.892, 9.108], True)
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values to summarize")
    mean = math.fsum(values) / n
    if n < 2:
        return Summary(n, mean, None, None, None)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1))
    hw = t_quantile(n) * sd / math.sqrt(n)
    return Summary(n, mean, sd, mean - hw, mean + hw)


__all__ = ["Summary", "summarize", "t_quantile"]
