"""Fits, plots and the generated verdict for the density hypothesis

    L(n) / (p(n) / ln p(n))  ->  0.286...   (n -> infinity).

Shared by notebooks/density_hypothesis.ipynb and experiments/make_figures.py,
so the notebook and the README figure draw the same thing.  Needs numpy and
matplotlib only (plain least squares; no scipy).

The models are linear in their two parameters, r(n) = c + a * g(n), so each
fit is one `numpy.linalg.lstsq`; c is the predicted limit.  The uncertainty of
c comes from two sources, both reported:

* the standard error of the fit (residual scatter, as if it were noise), and
* the drift of c when the fit range changes (n >= cut for several cuts),
  which shows how well the model's form describes the data.

A model's *band* is the smallest interval holding c +/- 2 standard errors for
every fit range tried.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from chomp_positions import Levels, partition_numbers

#: The conjectured limit of the hypothesis ratio.
CONJECTURED = 0.286

#: Fits use levels n >= FIT_CUT: below it the ratio jumps by several hundredths
#: between neighbouring levels (the notebook prints the mean jump per decade of
#: n), which would dominate a least-squares fit of the slow trend.
FIT_CUT = 40

#: The fit ranges for the uncertainty start at FIT_CUT, FIT_CUT + CUT_STEP, ...
#: as long as MIN_POINTS levels remain.
CUT_STEP = 10
MIN_POINTS = 21

#: "Recent" scatter is measured over the last RECENT levels.
RECENT = 20

#: Largest n considered when asking how far the sieve would have to go.
HORIZON = 2000


@dataclass(frozen=True)
class Model:
    """r(n) = c + a * g(n)."""

    key: str
    label: str              # for tables and legends
    g_text: str             # g(n) as text
    g: callable             # g(n, ln p(n)) on numpy arrays


MODELS = (
    Model("ln_n", "c + a/ln n", "1/ln n", lambda n, lnp: 1.0 / np.log(n)),
    Model("sqrt_n", "c + a/sqrt(n)", "1/sqrt(n)", lambda n, lnp: 1.0 / np.sqrt(n)),
    Model("ln_p", "c + a/ln p(n)", "1/ln p(n)", lambda n, lnp: 1.0 / lnp),
)


@dataclass
class Fit:
    model: Model
    cut: int                 # fitted on cut <= n <= n_max
    n_max: int
    c: float                 # limit (fixed when constrained)
    a: float
    se_c: float              # standard error of c (0 when c is fixed)
    rms: float               # rms residual over the fitted levels
    rms_recent: float        # rms residual over the last RECENT fitted levels
    constrained: bool = False

    def predict(self, n, lnp):
        return self.c + self.a * self.model.g(np.asarray(n, float), np.asarray(lnp, float))


def ln_partitions(n_max: int) -> np.ndarray:
    """ln p(n) for n = 0..n_max, exact partition numbers (no overflow)."""
    return np.array([math.log(v) for v in partition_numbers(n_max)])


def fit_model(model: Model, n, lnp, ratio, cut: int, limit: float | None = None) -> Fit:
    """Least squares of ratio = c + a*g(n) over n >= cut; with `limit` given,
    c is fixed to it and only a is fitted."""
    n, lnp, ratio = (np.asarray(x, float) for x in (n, lnp, ratio))
    m = n >= cut
    g = model.g(n[m], lnp[m])
    y = ratio[m]
    if limit is None:
        X = np.column_stack([np.ones_like(g), g])
        (c, a), *_ = np.linalg.lstsq(X, y, rcond=None)
        resid = y - X @ np.array([c, a])
        dof = max(len(y) - 2, 1)
        cov = (resid @ resid / dof) * np.linalg.inv(X.T @ X)
        se_c = float(np.sqrt(cov[0, 0]))
    else:
        c = float(limit)
        a = float(g @ (y - c) / (g @ g))
        resid = y - c - a * g
        se_c = 0.0
    return Fit(model, int(cut), int(n[m].max()), float(c), float(a), se_c,
               float(np.sqrt(np.mean(resid ** 2))),
               float(np.sqrt(np.mean(resid[-RECENT:] ** 2))), limit is not None)


@dataclass
class ModelSummary:
    model: Model
    best: Fit                # fitted on n >= FIT_CUT
    scan: list               # one Fit per cut
    fixed: Fit               # the same model with c fixed to CONJECTURED
    band: tuple              # (low, high) over the scan, c +/- 2 se

    def contains(self, value: float) -> bool:
        return self.band[0] <= value <= self.band[1]

    @property
    def drift(self) -> float:
        cs = [f.c for f in self.scan]
        return max(cs) - min(cs)


def fit_cuts(n_max: int, cut: int = FIT_CUT) -> list[int]:
    """The starting levels of the fit ranges used for the uncertainty."""
    cuts = list(range(cut, n_max - MIN_POINTS + 2, CUT_STEP))
    if not cuts:
        raise ValueError(f"levels up to n = {n_max} leave fewer than {MIN_POINTS} levels at n >= {cut}: "
                         f"run chomp sieve with --max-tiles {cut + MIN_POINTS - 1} or more")
    return cuts


def summarize(levels: Levels, cut: int = FIT_CUT, target: float = CONJECTURED) -> list[ModelSummary]:
    """Every model of MODELS fitted to the file's hypothesis ratio."""
    n = levels.tiles.astype(float)
    lnp = np.log(levels.positions.astype(float))
    r = levels.hypothesis_ratio
    out = []
    for model in MODELS:
        scan = [fit_model(model, n, lnp, r, c) for c in fit_cuts(levels.max_tiles, cut)]
        band = (min(f.c - 2 * f.se_c for f in scan), max(f.c + 2 * f.se_c for f in scan))
        out.append(ModelSummary(model, scan[0], scan, fit_model(model, n, lnp, r, cut, limit=target), band))
    return out


def first_separation(curves, threshold: float, n_from: int, lnp_all: np.ndarray) -> int | None:
    """The first n >= n_from at which the fitted curves spread by more than
    `threshold` (max - min over the curves); None if not before HORIZON."""
    n = np.arange(n_from, len(lnp_all))
    values = np.array([f.predict(n, lnp_all[n]) for f in curves])
    hit = np.nonzero(values.max(axis=0) - values.min(axis=0) > threshold)[0]
    return int(n[hit[0]]) if hit.size else None


def bytes_text(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if b < 1024 or unit == "EiB":
            if unit == "B":
                return f"{b:.0f} {unit}"
            return f"{b:.3g} {unit}" if b >= 1e4 else f"{b:.1f} {unit}"
        b /= 1024


def verdict(levels: Levels, summaries: list, target: float = CONJECTURED) -> str:
    """The conclusion, in Markdown, written from the computed numbers."""
    n, r = levels.tiles, levels.hypothesis_ratio
    n_max, r_last = levels.max_tiles, float(r[-1])
    cut = summaries[0].best.cut
    out = []

    # What the data themselves show, before any model.
    side = "below" if r_last < target else "above"
    other = (r >= target) if r_last < target else (r < target)
    since = int(n[other][-1]) + 1 if other.any() else int(n[0])
    tail = slice(max(len(n) - RECENT, 0), None)
    slope = float(np.polyfit(n[tail].astype(float), r[tail], 1)[0])
    out.append(
        f"**Data.** Levels 1..{n_max} (complete run, git {levels.attrs.get('git_revision', '?')}). "
        f"The ratio is {r_last:.4f} at n = {n_max}, {side} {target} at every level since n = {since}, "
        f"and over the last {len(n[tail])} levels it {'falls' if slope < 0 else 'rises'} by about "
        f"{abs(slope) * 10:.4f} per 10 levels. Fits use n >= {cut}.")

    # The models.
    lines = []
    for s in summaries:
        lines.append(f"- {s.model.label}: limit c = {s.best.c:.4f} +/- {s.best.se_c:.4f} (n >= {cut}); "
                     f"c over the fit ranges n >= {', '.join(str(f.cut) for f in s.scan)}: "
                     f"{', '.join(f'{f.c:.4f}' for f in s.scan)}; band [{s.band[0]:.4f}, {s.band[1]:.4f}] "
                     f"{'contains' if s.contains(target) else 'excludes'} {target}.")
    out.append("**Extrapolations.**\n\n" + "\n".join(lines))

    inside = [s.model.label for s in summaries if s.contains(target)]
    outside = [s.model.label for s in summaries if not s.contains(target)]
    limits = [s.best.c for s in summaries]
    spread = max(limits) - min(limits)
    max_se = max(s.best.se_c for s in summaries)
    max_drift = max(s.drift for s in summaries)
    lo, hi = min(s.band[0] for s in summaries), max(s.band[1] for s in summaries)
    if not inside:
        where = "below" if hi < target else "above" if lo > target else "around"
        text = (f"None of the {len(summaries)} models has {target} inside its band: extrapolated with "
                f"these corrections the data point to a limit between {lo:.3f} and {hi:.3f}, {where} {target}.")
    elif not outside:
        text = (f"{target} is inside every model's band: the data are consistent with the conjecture, "
                f"though just as consistent with any limit from {lo:.3f} to {hi:.3f}.")
    else:
        text = (f"{target} is inside the band of {', '.join(inside)} but not of {', '.join(outside)}: "
                f"the data do not decide.")
    if len(summaries[0].scan) > 1:
        drift_text = (f"a model's limit moves by up to {max_drift:.3f} when the fit range changes "
                      f"(n >= {', '.join(str(f.cut) for f in summaries[0].scan)})")
    else:
        drift_text = "only one fit range fits in these levels, so the drift with the range is not measured"
    form_dominates = max(spread, max_drift) > 2 * max_se
    text += (f" The models' limits differ by {spread:.3f} (the largest single-fit standard error is "
             f"{max_se:.4f}) and {drift_text}: "
             + ("the unknown form of the correction, not noise, dominates the uncertainty."
                if form_dominates else
                "the fit errors are as large as the differences between models, so more levels should "
                "narrow the limits.")
             + f" A correction that decays more slowly than all of these could still carry the ratio to "
               f"another limit, {target} included, so these numbers test the models as much as the "
               f"conjecture.")
    out.append("**Verdict.** " + text)

    out.append("**How far to go.** " + reach_text(levels, summaries, target))
    return "\n\n".join(out)


def reach_rows(levels: Levels, summaries: list, target: float = CONJECTURED) -> list[dict]:
    """How far the sieve would have to go for the data to tell fitted curves
    apart: the first n at which they differ by more than twice the scatter of
    the data about the fit.  One row per comparison and scatter:

    * each model against the same model with its limit fixed to `target`;
    * the models against each other.

    The scatter is the rms residual either over the whole fit range or over the
    last RECENT levels (smaller, since the ratio's jumps die down with n)."""
    lnp_all = ln_partitions(HORIZON)
    n_max = levels.max_tiles
    rows = []

    def add(what, curves, kind, scatter):
        hit = first_separation(curves, 2 * scatter, n_max, lnp_all) if scatter > 0 else None
        rows.append({"comparison": what, "scatter_of": kind, "scatter": scatter, "n": hit,
                     "more_levels": None if hit is None else max(hit - n_max, 0),
                     "positions": None if hit is None else math.exp(lnp_all[hit])})

    for s in summaries:
        add(f"{s.model.label} vs c = {target}", [s.best, s.fixed], "fit range", s.best.rms)
        add(f"{s.model.label} vs c = {target}", [s.best, s.fixed], f"last {RECENT}", s.best.rms_recent)
    every = [s.best for s in summaries]
    add("the models against each other", every, "fit range", max(s.best.rms for s in summaries))
    add("the models against each other", every, f"last {RECENT}", max(s.best.rms_recent for s in summaries))
    return rows


def _span(rows, n_max: int) -> str:
    """'n ≈ a..b (x..y more levels)', 'already ...' or 'not before ...' for some reach rows."""
    hits = [r["n"] for r in rows]
    future = sorted(h for h in hits if h is not None and h > n_max)
    parts = []
    done = sum(1 for h in hits if h is not None and h <= n_max)
    if done == len(hits):
        return f"the {n_max} computed levels already do"
    if hits.count(None) == len(hits):
        return f"not before n = {HORIZON}"
    if future:
        lo, hi = future[0], future[-1]
        parts.append(f"n ≈ {lo} ({lo - n_max} more levels)" if lo == hi else
                     f"n ≈ {lo}..{hi} ({lo - n_max}..{hi - n_max} more levels)")
    if done:
        parts.append(f"{done} of {len(hits)} already at n = {n_max}")
    if None in hits:
        parts.append(f"{hits.count(None)} of {len(hits)} not before n = {HORIZON}")
    return "; ".join(parts)


def reach_text(levels: Levels, summaries: list, target: float = CONJECTURED) -> str:
    rows = reach_rows(levels, summaries, target)
    n_max = levels.max_tiles
    fixed = [r for r in rows if r["comparison"] != "the models against each other"]
    models = [r for r in rows if r["comparison"] == "the models against each other"]

    def scat(rs):
        lo, hi = min(r["scatter"] for r in rs), max(r["scatter"] for r in rs)
        return f"{lo:.4f}" if f"{lo:.4f}" == f"{hi:.4f}" else f"{lo:.4f}..{hi:.4f}"

    wide = [r for r in fixed if r["scatter_of"] == "fit range"]
    narrow = [r for r in fixed if r["scatter_of"] != "fit range"]
    text = (f"A new level tells two fitted curves apart once they differ there by more than twice the "
            f"scatter of the data about the fit. To tell each model from the same model with its limit "
            f"fixed to {target}: with the scatter over the whole fit range ({scat(wide)}), "
            f"{_span(wide, n_max)}; with the scatter of the last {RECENT} levels ({scat(narrow)}), "
            f"{_span(narrow, n_max)}. To tell the models from each other: {_span(models[:1], n_max)} "
            f"with the first scatter, {_span(models[1:], n_max)} with the second.")
    future = [r for r in rows if r["n"] is not None and r["n"] > n_max]
    if future:
        far = max(future, key=lambda r: r["n"])
        text += (f" For scale: n = {far['n']} has p(n) ≈ {far['positions']:.2e} positions, a bitmap of at "
                 f"least {bytes_text(far['positions'] / 8)} for that level alone, against "
                 f"{bytes_text(float(levels.positions[-1]) / 8)} at n = {n_max}.")
    text += (" These estimates assume the model's form is right; the drift of the limits with the fit "
             "range says it is only roughly right, so read them as orders of magnitude.")
    return text


# --------------------------------------------------------------------------
# Plots (matplotlib axes in, nothing returned)
# --------------------------------------------------------------------------

def published_ratio(published: dict) -> np.ndarray:
    """The hypothesis ratio of the published rows, from their exact counts."""
    p = published["positions"].astype(float)
    return published["losing"].astype(float) * np.log(p) / p


#: Colours of the three fits (C3, red, marks the published rows).
FIT_COLOURS = ("C1", "C2", "C4")


def plot_hypothesis_ratio(ax, levels: Levels, published: dict, summaries=None, n_from: int = 10,
                          target: float = CONJECTURED, extend_to: int | None = None):
    """The ratio per level from n_from on, the conjectured limit and the
    published rows; with `summaries`, each model's fit drawn from its first
    fitted level to `extend_to` (default: 60 levels past the data)."""
    n, r = levels.tiles, levels.hypothesis_ratio
    m = n >= n_from
    ax.plot(n[m], r[m], "-", color="0.65", lw=0.8, zorder=1)
    ax.plot(n[m], r[m], ".", color="C0", ms=4, zorder=2, label=f"this sieve, n = {n_from}..{levels.max_tiles}")
    pm = published["tiles"] >= n_from
    ax.plot(published["tiles"][pm], published_ratio(published)[pm], "o", mfc="none", mec="C3", ms=9,
            mew=1.5, zorder=3, label="published rows (n = 20..90)")
    ax.axhline(target, color="k", ls="--", lw=1, label=f"conjectured limit {target}")
    lows, highs = [r[n >= max(n_from, 20)].min(), target], [r[n >= max(n_from, 20)].max(), target]
    if summaries:
        extend_to = extend_to or levels.max_tiles + 60
        lnp_all = ln_partitions(extend_to)
        for colour, s in zip(FIT_COLOURS, summaries):
            nn = np.arange(s.best.cut, extend_to + 1)
            curve = s.best.predict(nn, lnp_all[nn])
            lows.append(curve.min())
            ax.plot(nn, curve, ls=(0, (5, 2)), color=colour, lw=1.4,
                    label=f"fit {s.model.label}, n >= {s.best.cut}: limit c = {s.best.c:.3f}")
        ax.axvspan(levels.max_tiles, extend_to, color="0.94", zorder=0)
        ax.text(levels.max_tiles, 0.01, " extrapolated", transform=ax.get_xaxis_transform(), ha="left",
                va="bottom", fontsize=8, color="0.4")
    pad = 0.08 * (max(highs) - min(lows))
    ax.set_ylim(min(lows) - pad, max(highs) + pad)
    ax.set_xlabel("tiles n")
    ax.set_ylabel("L(n) / (p(n) / ln p(n))")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")


def plot_losing_fraction(ax, levels: Levels, published: dict, n_from: int = 1):
    """L(n)/p(n) per level, log scale, with the published rows marked."""
    n, f = levels.tiles, levels.losing_fraction
    m = (n >= n_from) & (f > 0)
    ax.semilogy(n[m], f[m], ".-", color="C0", ms=4, lw=0.8, label="this sieve (levels with L(n) > 0)")
    ax.semilogy(published["tiles"], published["percent_losing"] / 100, "o", mfc="none", mec="C3", ms=9,
                mew=1.5, label="published rows (percent, cut to two decimals)")
    ax.set_xlabel("tiles n")
    ax.set_ylabel("L(n) / p(n)")
    ax.set_title("Fraction of positions that are losing")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)


def plot_limit_vs_cut(ax, summaries, target: float = CONJECTURED):
    """Each model's fitted limit (+/- 2 standard errors) against the first level fitted."""
    for i, (colour, s) in enumerate(zip(FIT_COLOURS, summaries)):
        cuts = np.array([f.cut for f in s.scan]) + (i - 1) * 0.8  # side by side, not on top
        ax.errorbar(cuts, [f.c for f in s.scan], yerr=[2 * f.se_c for f in s.scan], fmt="o-",
                    color=colour, capsize=3, label=s.model.label)
    ax.axhline(target, color="k", ls="--", lw=1, label=f"conjectured {target}")
    ax.set_xlabel("fit range starts at n =")
    ax.set_ylabel("fitted limit c (+/- 2 s.e.)")
    ax.set_title("How the extrapolated limit depends on the fit range")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
