#!/usr/bin/env python3
"""scripts/gpu-check-summary.py OUT FRAMES: the Markdown summary of a `scripts/gpu-check run`
(docs/PORTING.md). Reads OUT/results.tsv (one row per step), OUT/devices.txt and the report
JSONs beside them; prints the summary on stdout. Standard library only (the GPU machine
installs nothing)."""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def status(rc):
    return {"0": "pass", "77": "skipped", "3": "validation errors", "4": "report check failed"}.get(rc, f"FAIL (exit {rc})")


def header(*columns):
    """A Markdown table's header row and separator."""
    return "| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|"


def main():
    out, frames = sys.argv[1], sys.argv[2]
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(out, "results.tsv")) if line.strip()]
    device = None
    lines = []
    lines.append("# gpu-check summary\n")
    devices = open(os.path.join(out, "devices.txt")).read()
    lines.append("## Devices (`flurry --list-devices --verbose`)\n\n```\n" + devices.strip() + "\n```\n")

    lines.append("## GPU tests\n\n" + header("test", "result", "seconds"))
    for r in rows:
        if r[0] == "test":
            lines.append(f"| {r[1]} | {status(r[2])} | {r[3]} |")

    lines.append(f"\n## Every scene, {frames} frames under validation (synchronization validation on)\n")
    lines.append(header("scene", "async", "result", "validation errors", "queues", "frame median (ms, GPU)"))
    for r in rows:
        if r[0] != "validation":
            continue
        rep = load(os.path.join(out, f"validation_{r[1]}_{r[2]}.json"))
        errors = queues = frame = "-"
        if rep:
            device = device or rep["device"]["name"]
            errors = rep["validation"]["errors"]
            q = rep["queues"]
            queues = "two" if q["async_compute"] else "one"
            frame = f'{rep["timings_ms"].get("frame", {}).get("median", 0):.3f}'
        lines.append(f"| {r[1]} | {r[2]} | {status(r[3])} | {errors} | {queues} | {frame} |")

    lines.append("\n## --bench at GPU sizes\n")
    lines.append(header("scene", "result", "copy ceiling GB/s", "particle-substeps/s", "slowest pass", "its ms/frame",
                        "its GB/s", "of ceiling"))
    for r in rows:
        if r[0] != "bench":
            continue
        rep = load(os.path.join(out, f"bench_{r[1]}.json"))
        if not rep or r[2] != "0":
            lines.append(f"| {r[1]} | {status(r[2])} | | | | | | |")
            continue
        passes = rep.get("passes", {})
        slow = max(passes.items(), key=lambda kv: kv[1].get("ms_per_frame", 0), default=(None, {}))
        name, p = slow
        lines.append(
            f'| {r[1]} | pass | {rep["ceiling"]["copy_gbps"]:.1f} | {rep.get("particle_substeps_per_s", 0):.3g} | '
            f'{name or "-"} | {p.get("ms_per_frame", 0):.3f} | {p.get("gbps", 0):.1f} | {p.get("fraction_of_ceiling", 0):.2f} |'
        )

    lines.append("\n## Particle self-collision (issue 15): the cloth at the size of the run, xpbd/self\n")
    lines.append(header("scene", "result", "particles", "copy ceiling GB/s", "frame ms", "xpbd/self ms/frame",
                        "its GB/s", "of ceiling"))
    for r in rows:
        if r[0] != "self":
            continue
        rep = load(os.path.join(out, f"self_{r[1]}.json"))
        if not rep or r[2] != "0":
            lines.append(f"| {r[1]} {r[3]}x{r[3]} | {status(r[2])} | | | | | | |")
            continue
        p = rep.get("passes", {}).get("xpbd/self", {})
        lines.append(
            f'| {r[1]} {r[3]}x{r[3]} | pass | {int(r[3]) ** 2} | {rep["ceiling"]["copy_gbps"]:.1f} | '
            f'{rep["timings_ms"].get("frame", {}).get("median", 0):.3f} | {p.get("ms_per_frame", 0):.3f} | '
            f'{p.get("gbps", 0):.1f} | {p.get("fraction_of_ceiling", 0):.2f} |'
        )

    lines.append("\n## Async compute on and off: wall time per frame (ms, no validation)\n")
    lines.append(header("scene", "async", "--no-async", "async / --no-async"))
    walls = {}
    for r in rows:
        if r[0] == "async":
            walls.setdefault(r[1], {})[r[2]] = (r[3], float(r[4]))
    for scene, m in walls.items():
        a, n = m.get("async", ("?", 0.0)), m.get("no-async", ("?", 0.0))
        ratio = f"{a[1] / n[1]:.2f}" if a[1] > 0 and n[1] > 0 and a[0] == "0" and n[0] == "0" else "-"
        lines.append(f"| {scene} | {a[1]:.2f} | {n[1]:.2f} | {ratio} |")
    lines.append("\n## Snow at scale (issue 14)\n")
    lines.append(header("run", "result", "P2G", "particles", "substeps/frame", "snow particle-substeps/s",
                        "frame ms (median)", "grid MiB", "slowest passes (ms, median)"))
    for r in rows:
        if r[0] != "snow":
            continue
        name = f"snow_big_{r[1].split('-')[-1]}" if r[1].startswith("snow-bench") else f"fracture_{r[2]}"
        rep = load(os.path.join(out, name + ".json"))
        if not rep:
            lines.append(f"| {r[1]} {r[2]} | {status(r[3])} | | | | | | | |")
            continue
        snows = [o for o in rep.get("objects", []) if o.get("type") == "snow"]
        sys_ = snows[0]["snow_system"] if snows else {}
        timings = {k: v for k, v in rep.get("timings_ms", {}).items() if k != "frame" and isinstance(v, dict)}
        slow = ", ".join(f'{k} {v.get("median", 0):.2f}' for k, v in sorted(timings.items(), key=lambda kv: -kv[1].get("median", 0))[:4])
        speed = rep.get("snow_particle_substeps_per_s")
        lines.append(
            f'| {r[1]} {r[2]} | {status(r[3])} | {sys_.get("p2g", "-")} | {sum(o["particles"] for o in snows)} | '
            f'{sys_.get("substeps_per_frame", "-")} | {f"{speed:.3g}" if speed else "-"} | '
            f'{rep["timings_ms"].get("frame", {}).get("median", 0):.2f} | {sys_.get("grid_memory_mib", 0):.1f} | {slow} |'
        )
    lines.insert(1, f"Device: {device or 'unknown'}; the report JSONs and logs are beside this file.\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
