#!/usr/bin/env python3
"""scripts/trace-svg.py TRACE.json OUT.svg [FIRST_FRAME [FRAMES]]: draws frames of a
`flurry --trace` file as a timeline picture, one row per track as Perfetto shows them
(docs/PROFILING.md), for documents and machines where Perfetto cannot be opened.
Nested scopes (render > render/ground) stack downwards; standard library only."""
import html
import json
import sys


def main():
    trace = json.load(open(sys.argv[1]))
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    events = trace["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X" and first <= e["args"]["frame"] < first + count]
    if not spans:
        sys.exit("trace-svg: no events in those frames")
    t0 = min(e["ts"] for e in spans)
    t1 = max(e["ts"] + e["dur"] for e in spans)
    width, left, row_h, lane_h = 1400, 215, 22, 90
    scale = (width - left - 20) / (t1 - t0)
    colours = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"]
    names = sorted({e["name"] for e in spans})
    colour = {n: colours[i % len(colours)] for i, n in enumerate(names)}
    out = []
    y = 40
    for tid in sorted(tracks):
        track = sorted((e for e in spans if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"]))
        if not track:
            continue
        out.append(f'<text x="8" y="{y + 15}" font-size="13" font-weight="bold">{html.escape(tracks[tid])}</text>')
        open_ends = []  # end times of the enclosing scopes: a scope's depth is how many are still open
        for e in track:
            open_ends = [end for end in open_ends if end > e["ts"] + 1e-3]
            depth = len(open_ends)
            open_ends.append(e["ts"] + e["dur"])
            x, w = left + (e["ts"] - t0) * scale, max(e["dur"] * scale, 0.5)
            ey = y + depth * row_h
            label = f'{e["name"]} (frame {e["args"]["frame"]}): {e["dur"] / 1000:.3f} ms'
            out.append(f'<rect x="{x:.1f}" y="{ey}" width="{w:.1f}" height="{row_h - 3}" fill="{colour[e["name"]]}">'
                       f"<title>{html.escape(label)}</title></rect>")
            if w > 60:
                out.append(f'<text x="{x + 3:.1f}" y="{ey + 14}" font-size="11" fill="white">{html.escape(e["name"])}</text>')
        y += lane_h
    for k in range(6):  # a time axis in ms from the first event shown
        x = left + k * (width - left - 20) / 5
        out.append(f'<text x="{x:.0f}" y="{y + 5}" font-size="11">{(t1 - t0) * k / 5 / 1000:.1f} ms</text>')
    device = html.escape(trace.get("otherData", {}).get("device", ""))
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 20}" font-family="sans-serif">'
            f'<rect width="100%" height="100%" fill="white"/>'
            f'<text x="8" y="20" font-size="14">flurry --trace: frames {first}..{first + count - 1} on {device}</text>')
    open(sys.argv[2], "w").write(head + "".join(out) + "</svg>\n")


if __name__ == "__main__":
    main()
