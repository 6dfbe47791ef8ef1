#!/usr/bin/env python3
"""Throughput against N for scangen, CUB and a copy, from device_bench's CSV.

    python3 bench/plot_device.py bench/results/device_bench_h100.csv bench/results/device_bench_h100.png

Needs matplotlib (pip install matplotlib). One panel per case; GB/s counts
the bytes read and written (2 N sizeof(element)).
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    data = defaultdict(lambda: defaultdict(list))
    order = []
    for r in csv.DictReader(open(src)):
        if r["status"] != "ok":
            continue
        case = r["case"]
        if case not in order:
            order.append(case)
        data[case][r["impl"]].append((int(r["log2n"]), float(r["gbps"])))
    cols = 4
    rows = (len(order) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    styles = {"scangen": ("tab:blue", "-o"), "cub": ("tab:red", "-s"), "copy": ("0.5", "--")}
    for ax, case in zip(axes.flat, order):
        for impl, (color, style) in styles.items():
            pts = sorted(data[case][impl])
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, label=impl, markersize=3)
        ax.set_title(case)
        ax.set_xlabel("log2 N")
        ax.set_ylabel("GB/s")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(order):]:
        ax.axis("off")
    axes[0][0].legend()
    fig.suptitle("Device-wide inclusive scans, NVIDIA H100 80GB HBM3: scangen, CUB DeviceScan, copy")
    fig.tight_layout()
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
