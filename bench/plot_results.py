#!/usr/bin/env python3
"""Plots of bench/RESULTS.md's tables, one PNG per benchmark section.

    python3 -m venv /tmp/plotvenv && /tmp/plotvenv/bin/pip install matplotlib
    /tmp/plotvenv/bin/python bench/plot_results.py [RESULTS.md [OUT_DIR]]

Defaults: bench/RESULTS.md, and bench/results/ for the PNGs, which have
stable names (plot_<benchmark>.png) and are linked from their sections.

Every number comes from the Markdown tables of RESULTS.md, found by their
section heading ("## select_bench: ...", "### H200"); rerun the script after a
table changes. Each title names the devices, commits and dates that the
paragraph just above the table names (commits in a clause that says "not
measured" are left out). Goal marks are drawn only where the table has a goal
column; elsewhere the line at 1.0 is the copy, CUB's time or the pair's
reference, as the axis label says. A cell of "—" is drawn as "n/a".
"""
import os
import re
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DPI = 100
WIDTH = 9.0  # inches: 900 px at DPI
COLORS = {"H100": ("#1f77b4", "#9ecae1"), "H200": ("#d95f02", "#fdae6b")}
EXTRA = ["#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
NUM = re.compile(r"[-−]?\d+(?:\.\d+)?")
COMMIT = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{7}\b")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
DEVICE = re.compile(r"\bH[12]00\b")

plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.titlesize": 11})


# ---------------------------------------------------------------- parsing


class Table:
    def __init__(self, h2, h3, before, lines):
        self.h2, self.h3, self.before = h2, h3, before
        cells = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
        self.header = cells[0]
        self.rows = [r for r in cells[2:] if any(r)]

    def col(self, name, nth=0):
        hits = [i for i, h in enumerate(self.header) if h == name or h.startswith(name)]
        return hits[nth]

    def device_cols(self):
        """{device: {header: index}} for headers grouped after an 'H100 ...' header."""
        out, dev = {}, None
        for i, h in enumerate(self.header):
            m = re.match(r"(H[12]00)\b", h)
            if m:
                dev = m.group(1)
                out[dev] = {"": i}
            elif dev:
                out[dev].setdefault(h, i)
        return out


def parse_tables(path):
    tables, h2, h3, para, last, block, fence = [], "", "", [], [], [], False
    prev_para = []
    for line in open(path, encoding="utf-8").read().splitlines() + [""]:
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if line.startswith("|"):
            if not block:
                prev_para = para or last  # the paragraph just above the table
            block.append(line)
            continue
        if block:
            tables.append(Table(h2, h3, " ".join(prev_para), block))
            block = []
        if line.startswith("## "):
            h2, h3, para, last = line[3:].strip(), "", [], []
        elif line.startswith("### "):
            h3, para, last = line[4:].strip(), [], []
        elif not line.strip():
            last, para = (para or last), []
        else:
            para.append(line.strip())
    return tables


def find(tables, section, sub=None):
    hits = [t for t in tables if t.h2.split(":")[0].split()[0] == section and (sub is None or t.h3.startswith(sub))]
    return hits


def num(cell):
    """The first number of a cell, or None for '—' or no number."""
    if cell is None or cell.strip() in ("", "—", "-"):
        return None
    m = NUM.search(cell)
    return float(m.group().replace("−", "-")) if m else None


def rng(cell):
    """(low, high) of '0.916 – 0.939' or (v, v) of '0.994'; None for '—'."""
    if cell is None or cell.strip() in ("", "—", "-"):
        return None
    m = re.match(r"\s*([-\d.]+)\s*[–-]\s*([-\d.]+)", cell)
    if m:
        return float(m.group(1)), float(m.group(2))
    v = num(cell)
    return None if v is None else (v, v)


def paren(cell):
    """The number in '14.98 (1.13)' parentheses, or None."""
    m = re.search(r"\(([-\d.]+)\)", cell or "")
    return float(m.group(1)) if m else None


def provenance(text, default_device=None):
    """{device: 'commit, commit, date'} from a paragraph's clauses."""
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets (file names repeat commits)
    text = re.sub(r"`[^`]*`", "", text)
    found = {}
    dev = default_device
    for clause in re.split(r";|\.\s", text):
        names = DEVICE.findall(clause)
        if names:
            dev = names[0]
        if "not measured" in clause:
            continue
        key = dev or "all"
        c, d = found.setdefault(key, ([], []))
        for x in COMMIT.findall(clause):
            if x not in c:
                c.append(x)
        for x in DATE.findall(clause):
            if x not in d:
                d.append(x)
    return {k: ", ".join(c + d) for k, (c, d) in found.items() if c or d}


def prov_line(tables, default=None):
    parts = {}
    for t in tables:
        dflt = default or (t.h3 if DEVICE.fullmatch(t.h3 or "") else None)
        for k, v in provenance(t.before, dflt).items():
            parts.setdefault(k, v)
    return "; ".join(f"{k}: {v}" if k != "all" else v for k, v in parts.items())


# ---------------------------------------------------------------- drawing


def wrap(s, n):
    """Lines of at most about n characters; long names break after '_'."""
    lines = textwrap.wrap(s.replace("_", "_ "), n, break_long_words=False)
    return "\n".join(ln.replace("_ ", "_") for ln in lines) or s


def grouped(ax, labels, series, horizontal=False, fmt="{:.2f}", annotate=True, fontsize=7, inside=False):
    """series: list of (name, [value or (lo, hi) or None], color); inside: values in the bars' ends."""
    k = len(series)
    width = 0.8 / k
    for j, (name, vals, color) in enumerate(series):
        pos = [i + (j - (k - 1) / 2) * width for i in range(len(labels))]
        label = name
        for p, v in zip(pos, vals):
            if v is None:
                if horizontal:
                    ax.text(0.01, p, "n/a", va="center", fontsize=fontsize, color="0.4", transform=ax.get_yaxis_transform())
                else:
                    ax.text(p, 0.01, "n/a", ha="center", va="bottom", rotation=90, fontsize=fontsize, color="0.4", transform=ax.get_xaxis_transform())
                continue
            lo, hi = v if isinstance(v, tuple) else (v, v)
            mid = (lo + hi) / 2
            err = [[mid - lo], [hi - mid]] if hi > lo else None
            if horizontal:
                ax.barh(p, mid, width, color=color, xerr=err, capsize=2, ecolor="0.2", label=label)
            else:
                ax.bar(p, mid, width, color=color, yerr=err, capsize=2, ecolor="0.2", label=label)
            label = None
            if annotate:
                txt = fmt.format(lo) if hi == lo else (fmt.format(lo) + "–" + fmt.format(hi))
                if horizontal and inside:
                    ax.text(lo, p, txt + " ", va="center", ha="right", fontsize=fontsize, color="white")
                elif horizontal:
                    ax.text(hi, p, " " + txt, va="center", fontsize=fontsize)
                else:
                    ax.annotate(txt, (p, hi), xytext=(0, 3 if hi > lo else 1), textcoords="offset points",
                                ha="center", va="bottom", rotation=90, fontsize=fontsize)
    if horizontal:
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
    else:
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels)


def refline(ax, value, label, horizontal=False):
    (ax.axvline if horizontal else ax.axhline)(value, color="black", linestyle="--", linewidth=1, label=label)


def headroom(ax, factor=1.18, horizontal=False):
    if horizontal:
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * factor)
    else:
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * factor)


def save(fig, out, name, title, sub):
    fig.suptitle(title + ("\n" + wrap(sub, 120) if sub else ""))
    fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    print(f"{path}: {os.path.getsize(path) // 1024} KiB")


# ---------------------------------------------------------------- one plot per section


def plot_block(tables, out):
    ts = find(tables, "block_bench")
    if not ts:
        return
    t = ts[0]
    labels = [wrap(r[0], 38) for r in t.rows]
    ofc = [i for i, h in enumerate(t.header) if h == "of copy"]
    names = [t.header[i - 1].replace(" µs", "") for i in ofc]
    fig, ax = plt.subplots(figsize=(WIDTH, 0.75 * len(labels) + 1.6))
    series = [(n, [rng(r[i]) for r in t.rows], EXTRA[j] if j else COLORS["H100"][0]) for j, (n, i) in enumerate(zip(names, ofc))]
    grouped(ax, labels, series, horizontal=True)
    refline(ax, 1.0, "copy", horizontal=True)
    ax.set_xlabel("fraction of copy (copy time / kernel time)")
    headroom(ax, 1.12, horizontal=True)
    ax.legend(loc="lower right")
    n = re.search(r"N = (2\^\d+)", t.before)
    title = "block_bench: block-level scans, one segment a block" + (f", N = {n.group(1)}" if n else "")
    save(fig, out, "plot_block_bench.png", title, prov_line(ts))


def plot_device(tables, out):
    ts = [t for t in find(tables, "device_bench") if DEVICE.fullmatch(t.h3)]
    if not ts:
        return
    key = lambda c: re.sub(r"\s*\(.*\)$", "", c)  # noqa: E731
    cases = []
    data = {}
    for t in ts:
        for r in t.rows:
            if key(r[0]) not in cases:
                cases.append(key(r[0]))
            data[(t.h3, key(r[0]))] = r
    devs = [t.h3 for t in ts]
    t0 = ts[0]
    sizes = [h for h in t0.header if h.startswith("2^") and " " not in h]
    c_copy = [h for h in t0.header if "of copy" in h][0]
    c_cub = [h for h in t0.header if "× CUB" in h][0]
    small, mid = sizes[:2], sizes[2:4]
    fig, axes = plt.subplots(3, 1, figsize=(WIDTH, 10.5))
    labels = [wrap(c, 10) for c in cases]

    def cells(dev, col, f):
        t = ts[devs.index(dev)]
        i = t.col(col)
        return [f(data[(dev, c)][i]) if (dev, c) in data else None for c in cases]

    grouped(axes[0], labels, [(d, cells(d, c_copy, num), COLORS[d][0]) for d in devs], fmt="{:.3f}")
    refline(axes[0], 1.0, "copy")
    axes[0].set_ylabel("fraction of copy")
    axes[0].set_title(f"{c_copy.replace('of copy', '').strip()}: fraction of copy")
    axes[0].set_ylim(0, 1.4)
    series = []
    for d in devs:
        for s, shade in zip(mid, COLORS[d][::-1]):
            series.append((f"{d} {s}", cells(d, s, paren), shade))
    grouped(axes[1], labels, series)
    refline(axes[1], 1.0, "CUB")
    axes[1].set_ylabel("× CUB (CUB time / scangen time)")
    axes[1].set_title(f"{' and '.join(mid)}: × CUB (above 1.0 scangen is faster)")
    headroom(axes[1], 1.2)
    series = []
    for d in devs:
        for s, shade in zip(small, COLORS[d][::-1]):
            series.append((f"{d} {s}", cells(d, s, num), shade))
    grouped(axes[2], labels, series, fmt="{:.1f}")
    axes[2].set_ylabel("µs a call (lower is better)")
    axes[2].set_title(f"small inputs, {' and '.join(small)}: µs a call")
    headroom(axes[2], 1.2)
    for ax in axes:
        ax.legend(loc="upper left", fontsize=7, ncol=5)
    save(fig, out, "plot_device_bench.png", "device_bench: device-wide scans", prov_line(ts))


def plot_select(tables, out):
    ts = find(tables, "select_bench")
    if not ts:
        return
    t = ts[0]
    dc = t.device_cols()
    labels = [wrap(r[0], 10) for r in t.rows]
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.6))
    ratio = [(d, [num(r[c["time / CUB's"]]) for r in t.rows], COLORS[d][0]) for d, c in dc.items()]
    grouped(axes[0], labels, ratio)
    refline(axes[0], 1.0, "CUB's time")
    axes[0].set_ylabel("scangen time / CUB's time (lower is better)")
    axes[0].set_title("time / CUB's")
    headroom(axes[0], 1.15)
    frac = []
    for d, c in dc.items():
        vals = []
        for r in t.rows:
            own, copy = num(r[c[""]]), num(r[c["copy"]])
            vals.append(copy / own if own and copy else None)
        frac.append((d, vals, COLORS[d][0]))
    grouped(axes[1], labels, frac)
    refline(axes[1], 1.0, "copy")
    axes[1].set_ylabel("fraction of copy (copy ms / scangen ms)")
    axes[1].set_title("fraction of copy (from the table's ms)")
    axes[1].set_ylim(0, 1.2)
    for ax in axes:
        ax.tick_params(axis="x", labelsize=8)
        ax.legend(loc="upper left", fontsize=8)
    n = re.match(r"(2\^\d+ \w+)", t.before)
    title = "select_bench: select, partition, run-length encoding" + (f", {n.group(1)}" if n else "")
    save(fig, out, "plot_select_bench.png", title, prov_line(ts))


def plot_soa(tables, out):
    ts = find(tables, "soa_bench")
    if not ts:
        return
    t = ts[0]
    names = [re.sub(r"\s*\(µs\)", "", h) for h in t.header[1:]]
    colors = []
    for j, h in enumerate(names):
        dev = DEVICE.search(h).group() if DEVICE.search(h) else "H100"
        colors.append(COLORS[dev][0] if j < 2 else EXTRA[j - 2])
    series = [(n, [num(r[j + 1]) for r in t.rows], colors[j]) for j, n in enumerate(names)]
    fig, ax = plt.subplots(figsize=(WIDTH, 4.6))
    grouped(ax, ["n = " + r[0] for r in t.rows], series, fmt="{:.3f}")
    refline(ax, 1.0, "the pair's reference (AoS, u64 sum, map + scan)")
    ax.set_ylabel("time / the reference's time (lower is faster)")
    ax.set_ylim(0, 1.45)
    ax.legend(loc="upper right", fontsize=8, ncol=2)
    save(fig, out, "plot_soa_bench.png", "soa_bench: input arrays (SoA), counting input, fused map", prov_line(ts))


def plot_shape(tables, out):
    ts = find(tables, "shape_bench")
    if not ts:
        return
    t = ts[0]
    dc = t.device_cols()
    gi = t.col("goal")
    labels = [r[0] for r in t.rows]
    fig, ax = plt.subplots(figsize=(WIDTH, 0.42 * len(labels) + 1.8))
    series = [(d, [num(r[c["of copy"]]) for r in t.rows], COLORS[d][0]) for d, c in dc.items()]
    grouped(ax, labels, series, horizontal=True, fmt="{:.3f}", inside=True)
    first = True
    for i, r in enumerate(t.rows):
        g = num(r[gi]) if "±" not in r[gi] else None
        if g is not None:
            ax.plot([g, g], [i - 0.45, i + 0.45], color="black", linewidth=2, label="goal" if first else None)
            first = False
    refline(ax, 1.0, "copy", horizontal=True)
    ax.set_xlabel("fraction of copy (f32 sums; copy time / scan time)")
    ax.set_xlim(0, 1.12)
    ax.legend(loc="lower right", fontsize=8)
    save(fig, out, "plot_shape_bench.png", "shape_bench: batched rows and column scans", prov_line(ts))


def plot_segmented(tables, out):
    ts = [t for t in find(tables, "segmented_bench") if DEVICE.fullmatch(t.h3)]
    if not ts:
        return
    fig, axes = plt.subplots(1, len(ts), figsize=(WIDTH, 4.6), sharey=True, squeeze=False,
                             gridspec_kw={"width_ratios": [len(t.rows) for t in ts]})
    for ax, t in zip(axes[0], ts):
        ci = t.col("× CUB")
        kinds = [s.strip() for s in t.header[ci].split(":", 1)[1].split("/")]
        vals = [[num(x) for x in r[ci].split("/")] for r in t.rows]
        series = [(k, [v[j] for v in vals], EXTRA[j] if j else COLORS[t.h3][0]) for j, k in enumerate(kinds)]
        grouped(ax, [r[0] for r in t.rows], series)
        refline(ax, 1.0, "CUB by key")
        ax.set_xlabel("mean segment length")
        ax.set_title(f"{t.h3}: {prov_line([t], t.h3).split(': ', 1)[-1]}")
        ax.legend(loc="lower right", fontsize=8)
    axes[0][0].set_ylabel("× CUB (CUB by key time / scangen time)")
    axes[0][0].set_ylim(0, 1.85)
    save(fig, out, "plot_segmented_bench.png", "segmented_bench: i32 sums of 2^28 elements, forward, against CUB's scan by key", "")


def plot_jit(tables, out):
    ts = find(tables, "jit_bench")
    if not ts:
        return
    t = ts[0]
    labels = [r[0].replace(" (", "\n(") for r in t.rows]
    ms = [i for i, h in enumerate(t.header) if h.endswith(" ms")]
    us = [i for i, h in enumerate(t.header) if " µs" in h]
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.4))
    shades = ["#1b9e77", "#7570b3", "#e7298a"]
    grouped(axes[0], labels, [(t.header[i], [rng(r[i]) for r in t.rows], shades[j]) for j, i in enumerate(ms)], fmt="{:.0f}")
    axes[0].set_ylabel("ms\n(bar: middle of the range; whiskers: min – max)")
    axes[0].set_title("compile: first result and tuned build ready")
    headroom(axes[0], 1.3)
    grouped(axes[1], labels, [(t.header[i], [rng(r[i]) for r in t.rows], shades[j]) for j, i in enumerate(us)], fmt="{:.0f}")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("µs a call, log scale\n(bar: middle of the range)")
    axes[1].set_title("the two tiers' kernels")
    lo, hi = axes[1].get_ylim()
    axes[1].set_ylim(lo, hi * 8)
    for ax in axes:
        ax.legend(loc="upper left", fontsize=8)
    save(fig, out, "plot_jit_bench.png", "jit_bench --tiers: cold JIT, fast tier then tuned build", prov_line(ts))


def plot_tune(tables, out):
    ts = find(tables, "tune_bench")
    if not ts:
        return
    t = ts[0]
    m = re.search(r"fraction of copy at (\S+) / (\S+?)\.?\s", t.before + " ")
    sizes = [m.group(1), m.group(2)] if m else ["first", "second"]
    devs = [h for h in t.header if DEVICE.fullmatch(h)]
    labels = [wrap(r[0], 12) for r in t.rows]
    series = []
    for d in devs:
        i = t.col(d)
        for k, (s, shade) in enumerate(zip(sizes, COLORS[d][::-1])):
            vals = []
            for r in t.rows:
                parts = r[i].split(" / ")
                vals.append(rng(parts[k]) if len(parts) == 2 else None)
            series.append((f"{d} {s}", vals, shade))
    fig, ax = plt.subplots(figsize=(WIDTH, 4.8))
    grouped(ax, labels, series, fontsize=6.5, fmt="{:.3f}")
    refline(ax, 1.0, "copy")
    ax.set_ylabel("fraction of copy")
    ax.set_ylim(0, 1.45)
    ax.tick_params(axis="x", labelsize=8)
    ax.legend(loc="upper right", fontsize=7, ncol=5)
    save(fig, out, "plot_tune_bench.png", "tune_bench: the tuning table's rows, flat scans", prov_line(ts))


def plot_opencl(tables, out):
    ts = find(tables, "opencl_bench")
    if not ts:
        return
    t = ts[0]
    cols = [(h.split()[0], i, paren) for i, h in enumerate(t.header) if "(of copy)" in h]
    cols += [(h.split()[0], i, num) for i, h in enumerate(t.header) if h.endswith("of copy") and "(" not in h]
    labels = [f"{r[0]}\n({r[t.col('tile')]})" for r in t.rows]
    shades = ["#c6dbef", "#6baed6", "#08519c"]
    series = [(s, [f(r[i]) for r in t.rows], shades[j % 3]) for j, (s, i, f) in enumerate(cols)]
    fig, ax = plt.subplots(figsize=(WIDTH, 4.4))
    grouped(ax, labels, series)
    refline(ax, 1.0, "copy")
    ax.set_ylabel("fraction of copy (copy time / scan time)")
    ax.set_ylim(0, 1.6)
    ax.legend(loc="upper right", fontsize=8, ncol=4)
    save(fig, out, "plot_opencl_bench.png", "opencl_bench: the OpenCL backend on NVIDIA's OpenCL", prov_line(ts))


def plot_python(tables, out):
    ts = find(tables, "python_bench")
    if not ts:
        return
    t = ts[0]
    devs = [h for h in t.header if DEVICE.fullmatch(h)]
    gi = t.col("goal")
    ratio_rows, host_rows, ref = [], [], None
    for r in t.rows:
        name = r[0].replace("`", "")
        if any("×" in r[t.col(d)] for d in devs):
            m = re.search(r"([A-Za-z][\w.]*) [\d.]+:", r[t.col(devs[0])]) or re.search(r"×\s*([A-Za-z][\w.]*)", r[t.col(devs[0])])
            ref = m.group(1) if m else ref
            vals = {}
            for d in devs:
                mm = re.search(r"([\d.]+)\s*×", r[t.col(d)])
                vals[d] = float(mm.group(1)) if mm else None
            g = re.search(r"([≥≤])\s*([\d.]+)\s*×", r[gi])
            ratio_rows.append((f"{name}\n(× {ref})", vals, g))
        else:
            names = [n.strip() for n in name.split(" / ")]
            for k, n in enumerate(names):
                vals = {}
                for d in devs:
                    parts = r[t.col(d)].split(" / ")
                    vals[d] = num(parts[k]) if len(parts) == len(names) else None
                host_rows.append((n.replace(", host", ""), vals))
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 5.0), gridspec_kw={"width_ratios": [len(ratio_rows), len(host_rows)]})
    labels = [wrap(n, 16) + (f"\ngoal {g.group(1)} {g.group(2)} ×" if g else "") for n, _, g in ratio_rows]
    grouped(axes[0], labels, [(d, [v[d] for _, v, _ in ratio_rows], COLORS[d][0]) for d in devs], fontsize=7)
    first = True
    for i, (_, _, g) in enumerate(ratio_rows):
        if g:
            gv = float(g.group(2))
            axes[0].plot([i - 0.45, i + 0.45], [gv, gv], color="black", linewidth=2.5,
                         label="goal (≥: at least, ≤: at most)" if first else None)
            first = False
    refline(axes[0], 1.0, "parity")
    axes[0].set_yscale("log")
    axes[0].set_ylim(0.03, 30)
    axes[0].set_ylabel("ratio (×) as the table gives it, log scale")
    axes[0].set_title("against torch, Triton, cuda.compute")
    axes[0].tick_params(axis="x", labelsize=7.5)
    grouped(axes[1], [wrap(n.replace("(", " ("), 12) for n, _ in host_rows], [(d, [v[d] for _, v in host_rows], COLORS[d][0]) for d in devs])
    axes[1].set_ylabel("host µs a call (lower is better)")
    axes[1].set_title("host cost of a call")
    axes[1].tick_params(axis="x", labelsize=7.5)
    headroom(axes[1], 1.25)
    axes[0].legend(loc="upper right", fontsize=8)
    axes[1].legend(loc="upper right", fontsize=8)
    save(fig, out, "plot_python_bench.png", "python_bench: the Python package", prov_line(ts))


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "RESULTS.md")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "results")
    tables = parse_tables(src)
    for f in (plot_block, plot_device, plot_select, plot_soa, plot_shape, plot_segmented,
              plot_jit, plot_tune, plot_opencl, plot_python):
        f(tables, out)


if __name__ == "__main__":
    main()
