"""Small SVG line charts drawn on the server, so the page needs no charting library.

A chart is a polyline of the recent readings of one channel scaled to a fixed view box, with the
last, lowest and highest values as text and a tick per capture the watch made. The lowest and highest
values sit in a gutter right of the plot, so they never cover the line; a time axis under the plot
gives the clock time of its first and last reading (``data-t`` holds the UNIX time, which the page
rewrites in the browser's time zone). Only numbers and escaped channel names go into the markup.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 320, 110
PAD_X, PAD_TOP = 4, 16
AXIS_H = 14  # the time axis under the plot: its line and one row of labels
PAD_BOTTOM = AXIS_H + 4
CHAR_W = 6.0  # width of one character of the 10 px labels, generously (digits, '.', 'e', '-')
MAX_POINTS = 160  # more points than pixels per column add bytes, not detail


def format_value(v: float) -> str:
    """A reading or score as the page shows it everywhere: 2 decimals in the everyday range, else 3 digits.

    ``21.5``, ``1013.25``, ``0`` and ``3.51e-07`` (a tiny model score is not rounded to 0).
    """
    if v == 0 or 0.01 <= abs(v) < 100_000:
        return f"{v:.2f}".rstrip("0").rstrip(".")
    return f"{v:.3g}"


def _clock(t: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(t))


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
    lo_text, hi_text, last = format_value(lo), format_value(hi), format_value(values[-1])
    gutter = CHAR_W * max(len(lo_text), len(hi_text)) + 6  # the scale labels live here, right of the line
    plot_right = WIDTH - PAD_X - gutter
    inner_w, inner_h = plot_right - PAD_X, HEIGHT - PAD_TOP - PAD_BOTTOM
    base = HEIGHT - AXIS_H  # the time axis line

    def x(at: float) -> float:
        return PAD_X + (at - t0) / tspan * inner_w

    def y(v: float) -> float:
        return PAD_TOP + (hi - v) / span * inner_h

    points = " ".join(f"{x(a):.1f},{y(v):.1f}" for a, v in zip(t, values, strict=True))
    parts = [f'{head} aria-label="{name}: last {last}, min {lo_text}, max {hi_text}">',
             f'<text x="{PAD_X}" y="11">{name}</text>',
             f'<text x="{WIDTH - PAD_X}" y="11" text-anchor="end" class="last">{last}</text>',
             f'<text x="{WIDTH - PAD_X}" y="{PAD_TOP + 8}" text-anchor="end" class="scale">{hi_text}</text>',
             f'<text x="{WIDTH - PAD_X}" y="{PAD_TOP + inner_h}" text-anchor="end" class="scale">{lo_text}</text>',
             f'<g class="axis"><line x1="{PAD_X}" x2="{plot_right:.1f}" y1="{base}" y2="{base}"/>',
             f'<text x="{PAD_X}" y="{HEIGHT - 2}" class="time" data-t="{t0:.3f}">{_clock(t0)}</text>']
    if t1 > t0:
        parts.append(f'<text x="{plot_right:.1f}" y="{HEIGHT - 2}" text-anchor="end" class="time" '
                     f'data-t="{t1:.3f}">{_clock(t1)}</text>')
    parts.append("</g>")
    for at in marks:
        if t0 <= at <= t1:
            parts.append(f'<line x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{PAD_TOP}" y2="{base}" class="mark"/>')
    parts.append(f'<polyline points="{points}" class="line"/></svg>')
    return "".join(parts)
