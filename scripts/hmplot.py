# SPDX-License-Identifier: MIT
"""hmplot.py - matplotlib for hypemu's plot scripts (doc/plots.md, "Drawing").

Every plot script in scripts/ draws through this module: put scripts/ on sys.path and
import hmplot. It sets matplotlib up once (the Agg backend; text kept as SVG <text>
elements, svg.fonttype "none", so the figures stay searchable and tests can read them;
a fixed svg.hashsalt and no date, so the same data give the same bytes), and gives:

  figure(nrows, ncols, title)    a figure of panels, sized for a page
  series(ax, xs, ys, lo, hi, i)  one series: line and markers in colour/marker i, its
                                 interval (lo..hi) a translucent band, hollow markers
                                 where `hollow` says so, a tooltip per point (`tips`)
  fit(ax, axis, values, share)   the axis fitted to the data: log when the positive
                                 data span 10x or more, else linear; from 0 for a share
  save(fig, base, formats)       BASE.svg (and .pdf, .png), each written to a temporary
                                 name and renamed; tooltips become SVG <title> elements
  Figure(title, ...)             one plot described series by series (line, note, save)

A script that cannot import matplotlib exits 2 with a sentence naming python3-matplotlib
(the Debian package; setup.sh installs it).
"""
import os
import sys
import textwrap
from xml.sax.saxutils import escape

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # the sentence tests and users see
    sys.stderr.write("%s: needs matplotlib (Debian: apt-get install python3-matplotlib) for "
                     "%s\n" % (os.path.basename(sys.argv[0]), sys.executable))
    sys.exit(2)

__all__ = ["figure", "series", "fit", "save", "formats", "Figure", "PALETTE", "MARKERS"]

# Okabe-Ito: distinguishable for the common colour-vision deficiencies; each colour also
# has its own marker and dash, so the series stay apart in grey too.
PALETTE = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
           "#999933", "#882255", "#7f3c8d"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]
DASHES = ["-", "--", "-.", ":"]
FORMATS = ("svg", "pdf", "png")

matplotlib.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "hypemu",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.fontsize": 8,
    "legend.framealpha": 0.85,
    "lines.linewidth": 1.4,
    "lines.markersize": 5,
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "path.simplify": False,
})


def formats(text):
    """The --formats list (comma-separated of svg, pdf, png), or None when one is not."""
    vals = [v for v in text.split(",") if v]
    if not vals or any(v not in FORMATS for v in vals):
        return None
    return vals


CHOSEN = ["svg"]  # the formats Figure.save writes: --formats, through add_formats


def add_formats(ap):
    """--formats for an argparse parser; formats_of(ap, args) checks it (exit 2)."""
    ap.add_argument("--formats", default="svg",
                    help="figure formats, comma-separated: svg, pdf, png (default svg)")


def formats_of(ap, args):
    fmts = formats(args.formats)
    if fmts is None:
        ap.error("--formats %s: allowed are svg, pdf, png, comma-separated" % args.formats)
    CHOSEN[:] = fmts
    return fmts


def figure(nrows=1, ncols=1, title=None, width=None, height=None):
    """A figure of nrows x ncols panels (axes returned flat); about 4.6 x 3.2 in each."""
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(width or 4.6 * ncols + 0.6, height or 3.2 * nrows + 0.6))
    if title:
        fig.suptitle(title, fontsize=11, fontweight="bold")
    return fig, [a for row in axes for a in row]


def series(ax, xs, ys, lo=None, hi=None, i=0, label=None, hollow=False, tips=None,
           line=True, marker=True, dash=None, color=None, size=None):
    """One series; None in ys breaks nothing but is left out. Returns its colour."""
    color = color or PALETTE[i % len(PALETTE)]
    pts = [(x, y, j) for j, (x, y) in enumerate(zip(xs, ys)) if y is not None]
    if not pts:
        return color
    px, py = [p[0] for p in pts], [p[1] for p in pts]
    if lo is not None and hi is not None:
        band = [(x, lo[j], hi[j]) for x, _, j in pts if lo[j] is not None and hi[j] is not None]
        if band:
            ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                            color=color, alpha=0.18, linewidth=0)
    style = dash if dash is not None else DASHES[i % len(DASHES)]
    mk = MARKERS[i % len(MARKERS)] if marker else None
    if line:
        ax.plot(px, py, color=color, linestyle=style)
    if label:  # the legend's entry: line and marker together
        ax.plot([], [], color=color, linestyle=style if line else "none", marker=mk,
                label=label)
    if mk:
        holl = hollow if isinstance(hollow, (list, tuple)) else [hollow] * len(ys)
        for x, y, j in pts:
            kw = {"markerfacecolor": "white" if holl[j] else color}
            if tips:
                kw["gid"] = "tip-%d" % len(_TIPS)
                _TIPS[kw["gid"]] = tips[j]
            ax.plot([x], [y], color=color, marker=mk, linestyle="none",
                    markeredgecolor=color, markersize=size or 5, **kw)
    return color


_TIPS = {}


def fit(ax, axis, values, share=False, xs=False):
    """Fit one axis ("x" or "y") to the values: zero-based for a share (top at least
    the data's); log10 when every value is positive and they span 10x or more."""
    vals = [float(v) for v in values if v is not None]
    setter = ax.set_xscale if axis == "x" else ax.set_yscale
    lim = ax.set_xlim if axis == "x" else ax.set_ylim
    if not vals:
        return
    lo, hi = min(vals), max(vals)
    if share:
        lim(0, max(hi * 1.08, 1e-12 if hi <= 0 else hi * 1.08))
        return
    if lo > 0 and hi / lo >= 10:
        setter("log", base=2 if xs else 10)
        if not xs:  # plain numbers; on few decades the 2s and 5s labelled too
            other = ax.xaxis if axis == "x" else ax.yaxis
            plain = matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v)
            other.set_major_formatter(plain)
            if hi / lo < 1000:
                other.set_minor_locator(matplotlib.ticker.LogLocator(subs=(2.0, 5.0)))
                other.set_minor_formatter(plain)
        if xs:
            ax.set_xticks(sorted(set(vals)))
            ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.get_xaxis().set_minor_locator(matplotlib.ticker.NullLocator())
        return
    if xs:
        ax.set_xticks(sorted(set(vals)))
    pad = (hi - lo) * 0.06 or abs(hi) * 0.1 or 1
    lim(lo - pad, hi + pad)


def _svg_tips(text):
    """The tooltips: a <title> first in each marked point's group."""
    for gid, tip in _TIPS.items():
        key = '<g id="%s">' % gid
        text = text.replace(key, key + "\n   <title>%s</title>" % escape(tip), 1)
    return text


def _renumber(text):
    """Tooltip ids numbered in document order, so that they do not depend on memory."""
    out, n = [], 0
    for part in text.split('<g id="tip-')[1:]:
        n += 1
        out.append('<g id="tip%d' % n + part[part.index('"'):])
    return text.split('<g id="tip-')[0] + "".join(out)


def save(fig, base, fmts=("svg",)):
    """BASE.FORMAT for each format, written to a temporary name and renamed."""
    import io

    written = []
    for f in fmts:
        path = "%s.%s" % (base, f)
        meta = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None},
                "png": {"Software": None}}[f]
        if f == "svg":
            buf = io.StringIO()
            fig.savefig(buf, format="svg", metadata=meta)
            data = _renumber(_svg_tips(buf.getvalue())).encode("utf-8")
        else:
            b = io.BytesIO()
            fig.savefig(b, format=f, metadata=meta)
            data = b.getvalue()
        with open(path + ".tmp", "wb") as out:
            out.write(data)
        os.replace(path + ".tmp", path)
        written.append(path)
    plt.close(fig)
    _TIPS.clear()
    return written


_MARK = {"circle": "o", "square": "s", "triangle": "^", "diamond": "D", None: None}
_DASH = {None: "-", "dash": "--", "dot": ":", "dashdot": "-."}


class Figure:
    """One plot of line series, for scripts that describe a plot series by series:
    a title (and subtitle), two axes ("linear", "log2" or "log10"; a log axis asked for
    is linear when the positive data span less than 10x), a legend right of the plot,
    notes under it.

        fig = hmplot.Figure("title", xlabel="d", ylabel="slots", yscale="log2")
        fig.line(xs, ys, label="measured", color=0, marker="circle", tips=[...])
        fig.line(xs, bound, label="bound", band=True)   # a wide translucent line
        fig.note("what was run")
        fig.save("out.svg", ["svg", "png"])              # out.svg, out.png

    line(): None in ys leaves the point out; color an int (PALETTE) or "#rrggbb"; dash
    None, "dash", "dot", "dashdot"; marker None, "circle", "square", "triangle",
    "diamond"; hollow one bool or one per point; tips one tooltip per point (an SVG
    <title>); points False draws markers only; size the marker radius (px); lo/hi an
    interval per point, drawn as a translucent band."""

    def __init__(self, title, xlabel="", ylabel="", xscale="linear", yscale="linear",
                 xlim=None, ylim=None, xticks=None, yticks=None, subtitle=None,
                 xformat=None, yformat=None, **_):
        self.title, self.subtitle, self.xlabel, self.ylabel = title, subtitle, xlabel, ylabel
        self.scale, self.lim = (xscale, yscale), (xlim, ylim)
        self.ticks, self.fmt = (xticks, yticks), (xformat, yformat)
        self.series, self.notes = [], []

    def line(self, xs, ys, label=None, color=None, dash=None, marker=None, hollow=False,
             width=1.6, band=False, tips=None, points=True, size=3.6, lo=None, hi=None):
        if color is None:
            color = len([s for s in self.series if s["auto"]])
            auto = True
        else:
            auto = False
        if isinstance(color, int):
            color = PALETTE[color % len(PALETTE)]
        self.series.append(dict(xs=list(xs), ys=list(ys), label=label, color=color, dash=dash,
                                marker=marker, hollow=hollow, width=width, band=band,
                                tips=tips, points=points, size=size, auto=auto, lo=lo, hi=hi))
        return self

    def note(self, text):
        self.notes.append(text)
        return self

    def _axis(self, ax, k, values):
        scale, lim, ticks, fmt = self.scale[k], self.lim[k], self.ticks[k], self.fmt[k]
        pos = [v for v in values if v is not None and v > 0]
        a = ax.xaxis if k == 0 else ax.yaxis
        plain = matplotlib.ticker.FuncFormatter(
            lambda v, _: fmt(v) if fmt else ("%d" % v if v == int(v) else "%.3g" % v))
        if scale != "linear" and pos and max(pos) / min(pos) >= 10:
            (ax.set_xscale if k == 0 else ax.set_yscale)("log", base=2 if scale == "log2"
                                                          else 10)
            if scale == "log10" and max(pos) / min(pos) < 1000:  # the 2s and 5s labelled
                a.set_minor_locator(matplotlib.ticker.LogLocator(subs=(2.0, 5.0)))
                a.set_minor_formatter(plain)
        a.set_major_formatter(plain)
        if ticks is not None:
            a.set_minor_locator(matplotlib.ticker.NullLocator())
            (ax.set_xticks if k == 0 else ax.set_yticks)(list(ticks))
        if lim:  # a little room, so that the markers at the ends show whole
            pad = 0.02 * (lim[1] - lim[0]) if k == 0 and scale == "linear" else 0
            (ax.set_xlim if k == 0 else ax.set_ylim)(lim[0] - pad, lim[1] + pad)

    def _draw(self, ax, s):
        pts = [(x, y, j) for j, (x, y) in enumerate(zip(s["xs"], s["ys"])) if y is not None]
        if not pts:
            return
        px, py = [p[0] for p in pts], [p[1] for p in pts]
        if s["lo"] is not None:
            ax.fill_between(px, [s["lo"][j] for _, _, j in pts], [s["hi"][j] for _, _, j in pts],
                            color=s["color"], alpha=0.18, linewidth=0)
        mk = _MARK[s["marker"]]
        if s["band"]:
            ax.plot(px, py, color=s["color"], alpha=0.28, linewidth=4 * s["width"],
                    solid_capstyle="round", label=s["label"])
        elif s["points"]:
            ax.plot(px, py, color=s["color"], linewidth=s["width"] * 0.8,
                    linestyle=_DASH.get(s["dash"], "-"))
        if s["label"] and not s["band"]:
            ax.plot([], [], color=s["color"], marker=mk, markerfacecolor="white"
                    if s["hollow"] is True else s["color"], label=s["label"],
                    linestyle=_DASH.get(s["dash"], "-") if s["points"] else "none")
        if not mk:
            return
        holl = s["hollow"] if isinstance(s["hollow"], list) else [s["hollow"]] * len(s["ys"])
        for x, y, j in pts:
            kw = {}
            if s["tips"] and s["tips"][j]:
                kw["gid"] = "tip-%d" % len(_TIPS)
                _TIPS[kw["gid"]] = s["tips"][j]
            ax.plot([x], [y], marker=mk, linestyle="none", color=s["color"],
                    markerfacecolor="white" if holl[j] else s["color"],
                    markersize=1.5 * s["size"], markeredgewidth=1.1, **kw)

    def save(self, path, fmts=None):
        """PATH.svg (or PATH's base with each format of fmts, default --formats'); returns
        the first file written."""
        fmts = fmts or CHOSEN
        fig, axes = figure(1, 1, None, width=10, height=5.2 + 0.22 * len(self.notes))
        ax = axes[0]
        for s in sorted(self.series, key=lambda s: 0 if s["band"] else 1):
            self._draw(ax, s)
        self._axis(ax, 0, [x for s in self.series for x in s["xs"]])
        self._axis(ax, 1, [y for s in self.series for y in s["ys"]])
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        fig.text(0.08, 0.975, self.title, fontsize=11, fontweight="bold", va="top")
        if self.subtitle:
            fig.text(0.08, 0.93, "\n".join(textwrap.wrap(self.subtitle, 130)), fontsize=8,
                     color="#444444", va="top")
        if any(s["label"] for s in self.series):
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        for i, t in enumerate(self.notes):
            ax.text(0, -0.16 - 0.07 * i, t, transform=ax.transAxes, fontsize=8,
                    color="#444444", va="top")
        longest = max([len(s["label"]) for s in self.series if s["label"]] or [0])
        fig.subplots_adjust(left=0.08, right=min(0.96, 0.93 - 0.0068 * longest), top=0.84,
                            bottom=0.14 + 0.045 * len(self.notes))
        base = path.rsplit(".", 1)[0] if path.rsplit(".", 1)[-1] in FORMATS else path
        return save(fig, base, fmts)[0]
