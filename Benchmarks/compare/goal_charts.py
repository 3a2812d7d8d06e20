"""Charts of goals measured in separate runs (issue 37: a chart per goal): one SVG per report section,
one panel per goal. A panel has a bar per measured thing — its median over the runs, a whisker
from the best run to the worst, each run a dot — and the goal as a dashed line, so a reader sees
the margin and the spread, not only the verdict. Used by restart.py, load.py and clients.py
(compare.py and scale.py draw their own, older charts).

Drawing is never worth a measurement: draw() returns the file's name, or None after logging why
it drew nothing (matplotlib missing, a figure it cannot draw), and the caller writes its report
either way.
"""

import os
from dataclasses import dataclass, field

from compare import chart_dir, log, med

GOAL_COLOUR = "#c0392b"
OURS_COLOUR = "#2a7ab9"
REFERENCE_COLOUR = "#b0b0b0"


@dataclass
class Bar:
    label: str
    values: list            # one per run; the bar is their median
    reference: bool = False  # shown beside, not judged (Watchman's figure, or another case of ours): grey


@dataclass
class Panel:
    title: str
    ylabel: str
    limit: float
    limit_label: str
    bars: list = field(default_factory=list)


def draw(out, name, title, panels):
    """Draws `panels` side by side into chart_dir(out)/name; returns name, or None (logged) if it
    drew nothing."""
    panels = [p for p in panels if any(b.values for b in p.bars)]
    if not out or not panels:
        return None
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log(f"no chart {name}: matplotlib is missing (python3 -m pip install matplotlib)")
        return None
    matplotlib.rcParams["svg.hashsalt"] = "ubiquity-benchmarks"
    try:
        outdir = chart_dir(out)
        os.makedirs(outdir, exist_ok=True)
        fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels) + 0.6, 3.8), squeeze=False)
        for ax, panel in zip(axes[0], panels):
            bars = [b for b in panel.bars if b.values]
            xs = range(len(bars))
            meds = [med(b.values) for b in bars]
            ax.bar(xs, meds, 0.6,
                   yerr=[[m - min(b.values) for m, b in zip(meds, bars)], [max(b.values) - m for m, b in zip(meds, bars)]],
                   capsize=3, color=[REFERENCE_COLOUR if b.reference else OURS_COLOUR for b in bars])
            for x, b in zip(xs, bars):
                ax.plot([x] * len(b.values), b.values, linestyle="none", marker="o", markersize=3, color="#0b2740")
            ax.axhline(panel.limit, color=GOAL_COLOUR, linestyle="--", linewidth=1.2, label=panel.limit_label)
            ax.set_xticks(list(xs))
            ax.set_xticklabels([b.label for b in bars], fontsize=8)
            ax.set_ylabel(panel.ylabel, fontsize=8)
            ax.set_ylim(bottom=0)
            ax.set_title(panel.title, fontsize=9)
            ax.legend(fontsize=7)
        fig.suptitle(title + "\nbar: the median of the runs; whisker: best to worst run; dot: one run", fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), format="svg", metadata={"Date": None})
        plt.close(fig)
        return name
    except (ValueError, TypeError, OSError) as e:
        log(f"no chart {name}: {e}")
        return None
