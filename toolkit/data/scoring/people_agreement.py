"""People's agreement with each other: Krippendorff's alpha, ordinal, over the rubric's three levels.

Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": the values of every unit (item) that has two or
more of them are paired (each pair weighted 1 / (m_u - 1)) into a coincidence matrix ``o``; with ``n_c`` its
marginals and ``n`` their sum, the ordinal distance of levels c <= k is ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``
and alpha = 1 - (n - 1) * sum(o_ck * d_ck) / sum(n_c * n_k * d_ck). A missing value ("can't tell") is no value;
a unit with one value pairs nothing. Written here (numpy only) because the package that computes it is a test
dependency, the check of this one.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Optional, Sequence

import numpy as np

LEVELS = (0.0, 0.5, 1.0)


def ordinal_alpha(units: Iterable[Sequence[Optional[float]]], levels: Sequence[float] = LEVELS) -> Optional[float]:
    """Krippendorff's ordinal alpha of ``units`` (each the values people gave one item, None = missing); None when
    it is undefined (fewer than two pairable values, or every pairable value the same level)."""
    index = {float(v): i for i, v in enumerate(levels)}
    o = np.zeros((len(levels), len(levels)))
    for values in units:
        codes = [index[float(v)] for v in values if v is not None]
        m = len(codes)
        if m < 2:
            continue
        counts = np.bincount(codes, minlength=len(levels)).astype(float)
        pairs = np.outer(counts, counts) - np.diag(counts)  # ordered pairs of different coders
        o += pairs / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n < 2:
        return None
    cum = np.cumsum(n_c)
    d = np.zeros_like(o)
    for c in range(len(levels)):
        for k in range(len(levels)):
            lo, hi = min(c, k), max(c, k)
            between = cum[hi] - (cum[lo - 1] if lo else 0.0)
            d[c, k] = (between - (n_c[lo] + n_c[hi]) / 2) ** 2
    expected = float((np.outer(n_c, n_c) * d).sum())
    if expected == 0:
        return None
    return float(1 - (n - 1) * (o * d).sum() / expected)


def alpha_without(labels: Mapping[str, Mapping[str, Optional[float]]]) -> dict[str, Optional[float]]:
    """For each labeller of ``labels`` (item -> labeller -> value), the alpha of everyone else's values: a
    labeller whose absence raises it much labels unlike the others (careless or hostile)."""
    people = sorted({who for by in labels.values() for who in by})
    return {who: ordinal_alpha([[v for w, v in by.items() if w != who] for by in labels.values()]) for who in people}
