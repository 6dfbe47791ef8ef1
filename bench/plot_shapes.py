#!/usr/bin/env python3
"""One plot per shape, from the raw results in bench/results/:

    python3 bench/plot_shapes.py [RESULTS_DIR]

writes, next to the data,
  shapes_rows_columns_h100.png  batched rows and column scans (shape_bench):
                                fraction of a copy of the same bytes, before
                                and after 2026-11-26's axis kernel, and the goal
  segmented_h100.png            segmented scans by offsets, flags and keys
                                (segmented_bench) against CUB's scan by key,
                                the flat scan and a copy, against mean length
  reverse_h100.png              reverse against forward scans (tune_bench),
                                fraction of copy at 2^24 and 2^28

Needs matplotlib (pip install matplotlib).
"""
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The goals of the issue on shapes, as fractions of a copy (H100).
GOALS = {
    "rows 4096 x 4096": 0.95,
    "rows 65536 x 256": 0.90,
    "rows 2^20 x 32": 0.90,
    "columns 1M x 32": 0.85,
    "columns 1M x 2": 0.70,
    "columns 65536 x 1024": 0.90,
}


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def rows_columns(d):
    series = [
        ("db701e3", "shape_bench_h100_2026-11-26_before.csv"),
        ("921c96b", "shape_bench_h100_2026-11-26_after.csv"),
    ]
    data = {label: {r["case"]: float(r["ratio"]) for r in read_csv(os.path.join(d, f))} for label, f in series}
    cases = list(GOALS)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.35
    for k, (label, _) in enumerate(series):
        xs = [i + (k - 0.5) * width for i in range(len(cases))]
        ax.bar(xs, [data[label].get(c, 0.0) for c in cases], width, label=label)
    for i, c in enumerate(cases):
        ax.plot([i - 0.45, i + 0.45], [GOALS[c]] * 2, color="black", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=15)
    ax.set_ylabel("fraction of a copy of the same bytes")
    ax.set_ylim(0, 1.05)
    ax.set_title("f32 sums, batched rows and column scans, H100 (dashed: goal)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(os.path.join(d, "shapes_rows_columns_h100.png"), dpi=110)


def segmented(d):
    rows = read_csv(os.path.join(d, "segmented_bench_h100_2026-11-25_after.csv"))
    xs = list(range(len(rows)))
    labels = ["one segment" if int(r["segments"]) == 1 else r["mean_length"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for key, label, style in [
        ("offsets_us", "by offsets", "o-"),
        ("flags_us", "by flags", "s-"),
        ("keys_us", "by keys", "^-"),
        ("cub_by_key_us", "CUB InclusiveScanByKey", "x--"),
        ("flat_us", "flat scan", ":"),
        ("copy_us", "copy of the input", "-."),
    ]:
        ax.plot(xs, [float(r[key]) for r in rows], style, label=label)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels)
    ax.set_xlabel("mean segment length")
    ax.set_ylabel("µs (2^28 i32, lower is better)")
    ax.set_ylim(bottom=0)
    ax.set_title("Segmented i32 sums, H100 (db701e3)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "segmented_h100.png"), dpi=110)


def reverse(d):
    line = re.compile(r"^(\S+)\s.*\s2\^(\d+)\s.*\s([0-9.]+) of copy")
    frac = {}
    for text in open(os.path.join(d, "reverse_tune_bench_h100_2026-11-25.txt")):
        m = line.match(text)
        if m:
            frac[(m.group(1), int(m.group(2)))] = float(m.group(3))
    cases = sorted({c for c, _ in frac if not c.endswith("_rev")}, key=lambda c: list(frac).index((c, 28)))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    width = 0.35
    for ax, log2n in zip(axes, (24, 28)):
        for k, (suffix, label) in enumerate([("", "forward"), ("_rev", "reverse")]):
            xs = [i + (k - 0.5) * width for i in range(len(cases))]
            ax.bar(xs, [frac.get((c + suffix, log2n), 0.0) for c in cases], width, label=label)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(cases, rotation=20)
        ax.set_title("N = 2^%d" % log2n)
        ax.set_ylim(0, 1.05)
    axes[0].set_ylabel("fraction of a copy")
    axes[1].legend()
    fig.suptitle("Reverse against forward device scans, H100 (2026-11-25)")
    fig.tight_layout()
    fig.savefig(os.path.join(d, "reverse_h100.png"), dpi=110)


if __name__ == "__main__":
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results")
    rows_columns(results)
    segmented(results)
    reverse(results)
