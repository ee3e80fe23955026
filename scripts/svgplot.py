# SPDX-License-Identifier: MIT
"""svgplot.py - a small SVG 1.1 line-plot writer for hypemu's scripts (no matplotlib).

The plotting scripts in scripts/ (plot-hypercube.py, plot-bus.py) draw with it, and
so can any other script: put scripts/ on sys.path and import svgplot. One Figure is
one plot: a title, two axes (linear, log2 or log10 each), any number of series drawn
as polylines and/or markers, a legend to the right of the plot area and optional
notes under it. The output is plain SVG 1.1 (no CSS, no scripts, no external fonts)
that browsers, Inkscape and rsvg-convert render the same way.

    import svgplot
    fig = svgplot.Figure("Successive broadcasts on Q_d", xlabel="dimension d",
                         ylabel="slots", yscale="log2", xticks=range(1, 13))
    fig.line([1, 2, 3], [2, 6, 12], label="rotated bound 2p + d - 2", band=True)
    fig.line([1, 2, 3], [2, 6, 12], label="rotated", marker="circle")
    fig.line([1, 2, 3], [1, 3, 7], label="lower bound", color="#555", dash="dot")
    fig.note("dimensions 1..3, strict contention")
    fig.save("successive.svg")

Series (Figure.line):
  xs, ys   numbers; a None (or, on a log axis, a value <= 0) in ys breaks the line
  label    legend text (None: not in the legend)
  color    "#rrggbb", or an int picking from PALETTE; default: the next colour
  dash     None (solid), "dash", "dot", or an SVG dasharray such as "6 3"
  marker   None, "circle", "square", "triangle", "diamond"
  hollow   markers drawn white inside (for "not verified" points, say): True, False,
           or one bool per point
  width    stroke width in px (default 1.6)
  size     marker radius in px (default 3.6): give coinciding series different sizes
  band     draw a wide translucent stroke instead of a thin line: a bound that the
           measured series may sit on, and still be seen
  tips     one tooltip string per point (an SVG <title>, shown by browsers)
  points   False: no polyline, markers only

Axes: xscale/yscale are "linear", "log2" or "log10"; xlim/ylim fix the range (else it
is the data's, rounded out to ticks); xticks/yticks give the tick positions
explicitly; xformat/yformat turn a tick value into its label (default: integers
plainly, 10000 and up as 10K/1M, on log2 axes 2 to the power from 2^17). A log axis
says "(log scale)" after its label. Text is escaped; all coordinates are rounded to
0.1 px, so the same data give the same bytes.

For the Seidel plots' style (log-log, dots measured, lines formula):

    fig = svgplot.Figure("Figure 16", xlabel="m (bytes)", ylabel="cost (us)",
                         xscale="log2", yscale="log10",
                         xformat=lambda m: "%dK" % (m // 1024) if m >= 1024 else "%d" % m)
    fig.line(ms, formula_us, label="ST (Table I)", color=0)
    fig.line(ms, emulated_us, color=0, marker="circle", points=False)
"""
import math
from xml.sax.saxutils import escape

__all__ = ["Figure", "PALETTE"]

# Okabe-Ito and friends: distinguishable for the common colour-vision deficiencies.
PALETTE = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f3c8d",
           "#000000", "#999933", "#882255"]

DASHES = {"dash": "7 4", "dot": "2 3", "dashdot": "7 3 2 3"}
FONT = 12  # px, for ticks and legend
CHAR_W = 6.8  # rough width of one character at FONT px, for layout only


def _fmt_num(v, base=None):
    """A tick label: integers plainly (K/M for round thousands of 10000 and more; on a
    log2 axis, 2 with a superscript exponent from 2^17 on), else 3 significant digits."""
    if v == 0:
        return "0"
    if abs(v - round(v)) < 1e-9 * max(1.0, abs(v)):
        n = int(round(v))
        if base == 2.0 and n >= 1 << 17 and n & (n - 1) == 0:
            sup = str.maketrans("0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076"
                                "\u2077\u2078\u2079")
            return "2" + str(n.bit_length() - 1).translate(sup)
        if abs(n) >= 10000 and n % 1000000 == 0:
            return "%dM" % (n // 1000000)
        if abs(n) >= 10000 and n % 1000 == 0:
            return "%dK" % (n // 1000)
        return str(n)
    return "%.3g" % v


class _Axis:
    def __init__(self, scale, lim, ticks):
        if scale not in ("linear", "log2", "log10"):
            raise ValueError("scale %r: allowed are linear, log2, log10" % (scale,))
        self.scale, self.lim, self.ticks_given = scale, lim, ticks
        self.base = {"log2": 2.0, "log10": 10.0}.get(scale)

    def ok(self, v):
        return v is not None and (self.base is None or v > 0)

    def t(self, v):
        """The value in axis space (the log of it on a log axis)."""
        return math.log(v, self.base) if self.base else float(v)

    def fit(self, values):
        """Fix the range and the ticks from the data (unless given)."""
        vals = [v for v in values if self.ok(v)]
        if self.lim:
            lo, hi = self.lim
        elif vals:
            lo, hi = min(vals), max(vals)
        else:
            lo, hi = (1, 10) if self.base else (0, 1)
        if self.base:
            if self.ticks_given is None:
                lo = self.base ** math.floor(math.log(lo, self.base) + 1e-9)
                hi = self.base ** math.ceil(math.log(hi, self.base) - 1e-9)
            if hi <= lo:
                hi = lo * self.base
            e0 = math.floor(math.log(lo, self.base) + 1e-9)
            e1 = math.ceil(math.log(hi, self.base) - 1e-9)
            step = max(1, int(math.ceil((e1 - e0 + 1) / 10.0)))  # at most ~10 labels
            major = [self.base ** e for e in range(e0, e1 + 1) if (e - e0) % step == 0]
            minor = []
            if self.base == 10:
                minor = [m * 10.0 ** e for e in range(e0, e1) for m in range(2, 10)]
            elif step > 1:
                minor = [2.0 ** e for e in range(e0, e1 + 1) if (e - e0) % step]
        else:
            if hi <= lo:
                lo, hi = lo - 1, hi + 1
            raw = (hi - lo) / 6.0
            mag = 10 ** math.floor(math.log10(raw))
            step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw - 1e-12)
            if self.ticks_given is None and not self.lim:
                lo, hi = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
            n = int(round((hi - lo) / step))
            major = [lo + i * step for i in range(n + 1)]
            minor = []
        if self.ticks_given is not None:
            major = [v for v in self.ticks_given if self.ok(v)]
            if not self.lim:
                lo, hi = min(lo, min(major)), max(hi, max(major))
        self.lo, self.hi, self.major, self.minor = lo, hi, major, minor
        self.tlo, self.thi = self.t(lo), self.t(hi)
        if self.thi == self.tlo:
            self.thi = self.tlo + 1

    def label(self, v):
        return self.fmt(v) if self.fmt else _fmt_num(v, self.base)

    def frac(self, v):
        return (self.t(v) - self.tlo) / (self.thi - self.tlo)


class Figure:
    """One plot; see the module's docstring for the whole interface."""

    def __init__(self, title, xlabel="", ylabel="", xscale="linear", yscale="linear",
                 xlim=None, ylim=None, xticks=None, yticks=None, subtitle=None,
                 plot_width=520, plot_height=340, xformat=None, yformat=None):
        self.title, self.subtitle = title, subtitle
        self.xlabel, self.ylabel = xlabel, ylabel
        self.x = _Axis(xscale, xlim, list(xticks) if xticks is not None else None)
        self.y = _Axis(yscale, ylim, list(yticks) if yticks is not None else None)
        self.x.fmt, self.y.fmt = xformat, yformat
        self.pw, self.ph = plot_width, plot_height
        self.series, self.notes = [], []

    def line(self, xs, ys, label=None, color=None, dash=None, marker=None, hollow=False,
             width=1.6, band=False, tips=None, points=True, size=3.6):
        xs, ys = list(xs), list(ys)
        if not isinstance(hollow, bool):
            hollow = [bool(h) for h in hollow]
        if len(xs) != len(ys):
            raise ValueError("line %r: %d x values but %d y values" % (label, len(xs), len(ys)))
        if marker not in (None, "circle", "square", "triangle", "diamond"):
            raise ValueError("marker %r: allowed are circle, square, triangle, diamond" %
                             (marker,))
        if color is None:
            color = len([s for s in self.series if s["auto"]])
            auto = True
        else:
            auto = False
        if isinstance(color, int):
            color = PALETTE[color % len(PALETTE)]
        self.series.append({"xs": xs, "ys": ys, "label": label, "color": color, "dash": dash,
                            "marker": marker, "hollow": hollow, "width": width, "band": band,
                            "tips": tips, "points": points, "auto": auto, "size": size})
        return self

    def note(self, text):
        """A line of text under the plot (what was run, what is missing)."""
        self.notes.append(text)
        return self

    # ---- drawing -------------------------------------------------------------
    def _marker(self, kind, x, y, color, hollow, tip, r=3.6):
        fill = "white" if hollow else color
        common = 'fill="%s" stroke="%s" stroke-width="1.3"' % (fill, color)
        if kind == "circle":
            el = '<circle cx="%.1f" cy="%.1f" r="%.1f" %s' % (x, y, r, common)
        elif kind == "square":
            el = '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s' % (
                x - r, y - r, 2 * r, 2 * r, common)
        else:
            if kind == "triangle":
                pts = [(x, y - 1.25 * r), (x - 1.15 * r, y + 0.8 * r), (x + 1.15 * r, y + 0.8 * r)]
            else:
                pts = [(x, y - 1.3 * r), (x + 1.1 * r, y), (x, y + 1.3 * r), (x - 1.1 * r, y)]
            el = '<polygon points="%s" %s' % (" ".join("%.1f,%.1f" % p for p in pts), common)
        if tip:
            return el + '><title>%s</title></%s>' % (escape(tip), el.split()[0][1:])
        return el + "/>"

    def _stroke(self, s):
        if s["band"]:
            return ('stroke="%s" stroke-opacity="0.28" stroke-width="%.1f" '
                    'stroke-linecap="round" stroke-linejoin="round"' % (s["color"], 4 * s["width"]))
        attrs = 'stroke="%s" stroke-width="%.1f" stroke-linejoin="round"' % (s["color"], s["width"])
        if s["dash"]:
            attrs += ' stroke-dasharray="%s"' % DASHES.get(s["dash"], s["dash"])
        return attrs

    def to_svg(self):
        self.x.fit([v for s in self.series for v in s["xs"]])
        self.y.fit([v for s in self.series for v in s["ys"]])
        labels = [s["label"] for s in self.series if s["label"]]
        legend_w = (max([len(t) for t in labels]) * CHAR_W + 44) if labels else 0
        L = 74  # left margin: y tick labels and the y label
        T = 48 if self.subtitle else 34
        W = int(L + self.pw + 24 + legend_w + 12)
        W = max(W, int(max([len(t) for t in self.notes] or [0]) * CHAR_W * 11 / FONT + 24))
        legend_h = 20 * len(labels) + 8
        notes_h = 17 * len(self.notes)
        H = int(T + max(self.ph, legend_h) + 48 + notes_h + 8)
        x0, y0, x1, y1 = L, T + self.ph, L + self.pw, T  # plot area: x0..x1, y1 (top)..y0

        def px(v):
            return x0 + self.x.frac(v) * self.pw

        def py(v):
            return y0 - self.y.frac(v) * self.ph

        o = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" '
             'viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif" '
             'font-size="%d">' % (W, H, W, H, FONT),
             '<title>%s</title>' % escape(self.title),
             '<rect x="0" y="0" width="%d" height="%d" fill="white"/>' % (W, H),
             '<defs><clipPath id="plotarea"><rect x="%.1f" y="%.1f" width="%.1f" '
             'height="%.1f"/></clipPath></defs>' % (x0 - 6, y1 - 6, self.pw + 12, self.ph + 12),
             '<text x="%d" y="20" font-size="15" font-weight="bold">%s</text>' % (
                 L, escape(self.title))]
        if self.subtitle:
            o.append('<text x="%d" y="37" fill="#444">%s</text>' % (L, escape(self.subtitle)))
        # Grid and ticks.
        for v in self.y.minor:
            if self.y.lo <= v <= self.y.hi:
                o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#f0f0f0"/>' % (
                    x0, py(v), x1, py(v)))
        for v in self.x.minor:
            if self.x.lo <= v <= self.x.hi:
                o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#f0f0f0"/>' % (
                    px(v), y1, px(v), y0))
        for v in self.y.major:
            if self.y.lo - 1e-9 <= v <= self.y.hi + 1e-9:
                y = py(v)
                o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dddddd"/>' % (
                    x0, y, x1, y))
                o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (
                    x0 - 6, y + 4, escape(self.y.label(v))))
        for v in self.x.major:
            if self.x.lo - 1e-9 <= v <= self.x.hi + 1e-9:
                x = px(v)
                o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>' % (
                    x, y1, x, y0))
                o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>' % (
                    x, y0, x, y0 + 4))
                o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
                    x, y0 + 17, escape(self.x.label(v))))
        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>' % (
            x0, y1, self.pw, self.ph))
        scale_note = {"log2": " (log scale)", "log10": " (log scale)", "linear": ""}
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
            (x0 + x1) / 2.0, y0 + 36, escape(self.xlabel + scale_note[self.x.scale]
                                             if self.xlabel else "")))
        cy = (y0 + y1) / 2.0
        o.append('<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">'
                 '%s</text>' % (cy, cy, escape(self.ylabel + scale_note[self.y.scale]
                                                if self.ylabel else "")))
        # Series: bands first, then lines, then markers, so nothing hides a marker.
        order = sorted(range(len(self.series)), key=lambda i: 0 if self.series[i]["band"] else 1)
        body, marks = [], []
        for i in order:
            s = self.series[i]
            seg, segs = [], []
            for j, (xv, yv) in enumerate(zip(s["xs"], s["ys"])):
                if self.x.ok(xv) and self.y.ok(yv):
                    seg.append((px(xv), py(yv)))
                    if s["marker"]:
                        tip = s["tips"][j] if s["tips"] else None
                        h = s["hollow"][j] if isinstance(s["hollow"], list) else s["hollow"]
                        marks.append(self._marker(s["marker"], px(xv), py(yv), s["color"], h, tip,
                                                  s["size"]))
                elif seg:
                    segs.append(seg)
                    seg = []
            if seg:
                segs.append(seg)
            if s["points"]:
                for seg in segs:
                    if len(seg) > 1:
                        body.append('<polyline fill="none" %s points="%s"/>' % (
                            self._stroke(s), " ".join("%.1f,%.1f" % p for p in seg)))
        o.append('<g clip-path="url(#plotarea)">')
        o.extend(body)
        o.extend(marks)
        o.append('</g>')
        # Legend.
        lx, ly = x1 + 24, y1 + 12
        for s in self.series:
            if not s["label"]:
                continue
            if s["points"]:
                o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" fill="none" %s/>' % (
                    lx, ly, lx + 28, ly, self._stroke(s)))
            if s["marker"]:
                o.append(self._marker(s["marker"], lx + 14, ly, s["color"], s["hollow"] is True,
                                      None))
            o.append('<text x="%d" y="%d">%s</text>' % (lx + 36, ly + 4, escape(s["label"])))
            ly += 20
        ny = y0 + 56
        for t in self.notes:
            o.append('<text x="%d" y="%d" fill="#444" font-size="11">%s</text>' % (
                12, ny, escape(t)))
            ny += 17
        o.append("</svg>")
        return "\n".join(o) + "\n"

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_svg())
        return path
