"""Small SVG line charts drawn on the server, so the page needs no charting library.

A chart is a polyline of the recent readings of one channel scaled to a fixed view box, with the
last, lowest and highest values as text and a tick per capture the watch made. Only numbers and
escaped channel names go into the markup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 320, 96
PAD_X, PAD_TOP, PAD_BOTTOM = 4, 16, 6
MAX_POINTS = 160  # more points than pixels per column add bytes, not detail


def _fmt(v: float) -> str:
    if v == 0 or 0.01 <= abs(v) < 100_000:
        return f"{v:.2f}".rstrip("0").rstrip(".")
    return f"{v:.3g}"


def _thin(t: Sequence[float], v: Sequence[float]) -> tuple[list[float], list[float]]:
    """Every k-th point (always keeping the last), so a chart stays under MAX_POINTS points."""
    n = len(v)
    if n <= MAX_POINTS:
        return list(t), list(v)
    step = math.ceil(n / MAX_POINTS)
    idx = list(range(n - 1, -1, -step))[::-1]
    return [t[i] for i in idx], [v[i] for i in idx]


def line_chart(t: Sequence[float], values: Sequence[float], *, label: str, unit: str = "",
               marks: Sequence[float] = ()) -> str:
    """An SVG chart of ``values`` over times ``t`` (UNIX seconds); ``marks`` are times drawn as ticks."""
    name = escape(f"{label} ({unit})" if unit else label)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" class="chart" '
            f'role="img" data-channel="{escape(label)}" data-points="{len(values)}"')
    if not values:
        return (f'{head} aria-label="{name}: no readings yet"><text x="{PAD_X}" y="12">{name}: no readings yet'
                '</text></svg>')
    t, values = _thin(t, values)
    lo, hi = min(values), max(values)
    span = hi - lo or max(abs(hi) * 0.01, 1e-9)
    t0, t1 = t[0], t[-1]
    tspan = (t1 - t0) or 1.0
    inner_w, inner_h = WIDTH - 2 * PAD_X, HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(at: float) -> float:
        return PAD_X + (at - t0) / tspan * inner_w

    def y(v: float) -> float:
        return PAD_TOP + (hi - v) / span * inner_h

    points = " ".join(f"{x(a):.1f},{y(v):.1f}" for a, v in zip(t, values, strict=True))
    last = _fmt(values[-1])
    parts = [f'{head} aria-label="{name}: last {last}, min {_fmt(lo)}, max {_fmt(hi)}">',
             f'<text x="{PAD_X}" y="11">{name}</text>',
             f'<text x="{WIDTH - PAD_X}" y="11" text-anchor="end" class="last">{last}</text>',
             f'<text x="{WIDTH - PAD_X}" y="{PAD_TOP + 8}" text-anchor="end" class="scale">{_fmt(hi)}</text>',
             f'<text x="{WIDTH - PAD_X}" y="{HEIGHT - PAD_BOTTOM - 1}" text-anchor="end" class="scale">'
             f'{_fmt(lo)}</text>']
    for at in marks:
        if t0 <= at <= t1:
            parts.append(f'<line x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{PAD_TOP}" y2="{HEIGHT - PAD_BOTTOM}" '
                         'class="mark"/>')
    parts.append(f'<polyline points="{points}" class="line"/></svg>')
    return "".join(parts)
