#!/usr/bin/env python3
"""Crowded 10k-body scenes made apart from the project's own generators, for checking
that a speed claim holds on scenes the grid and the kernels were not tuned on.

The built-in generators (`src/tools/generate.rs`) spread bodies of a few sizes evenly. These
scenes mix what a game does instead, each from its own seed:

- `debris`: convex polygons of 3 to 12 vertices with lognormal sizes (most 2-10 units
  across, a few 60), spread evenly, turned at random, and three 300-unit slabs among
  them: many sizes and levels at once.
- `sprites`: blob bitmasks of 3 to 64 pixels, seven in ten piled in 30 gaussian
  clusters: crowds next to empty space.
- `swarm`: circles and small polygons in 25 gaussian swarms of different spreads, on
  three layers, most accepting every layer and a fifth only the first: filters and
  clusters together.

    python3 scripts/unseen_scenes.py --out scenes/            # six files, seeds 101, 102
    gpu-collide bench --scene scenes/debris-101.json --backend gpu,cpu,parry2d --frames 20

The bench checks that every backend finds the same pairs, and moves the bodies between
frames as it does for any file. Figures: BENCHMARKS.md, "Scenes from another generator".
"""

import argparse
import json
import math
import os
import random


def convex_polygon(rng, radius, corners):
    """Up to `corners` points on a circle of `radius`, by angle: always convex (points on
    a circle are never collinear), with points closer than 5% of the radius dropped so
    that no edge is degenerate."""
    angles = sorted(rng.uniform(0.0, 2.0 * math.pi) for _ in range(corners))
    points = []
    for a in angles:
        p = [radius * math.cos(a), radius * math.sin(a)]
        if not points or math.dist(p, points[-1]) > 0.05 * radius:
            points.append(p)
    if len(points) >= 3 and math.dist(points[0], points[-1]) <= 0.05 * radius:
        points.pop()
    if len(points) < 3:
        points = [[-radius, -radius], [radius, -radius], [0.0, radius]]
    return {"polygon": points}


def blob(rng, width, height):
    """An elliptic blob with ragged edges, at least one pixel set."""
    cx, cy = (width - 1) / 2, (height - 1) / 2
    rows = []
    for y in range(height):
        row = ""
        for x in range(width):
            d = ((x - cx) / max(cx, 0.5)) ** 2 + ((y - cy) / max(cy, 0.5)) ** 2
            row += "#" if d <= 1.0 + rng.uniform(-0.3, 0.2) else "."
        rows.append(row)
    if "#" not in "".join(rows):
        middle = rows[height // 2]
        rows[height // 2] = middle[: width // 2] + "#" + middle[width // 2 + 1 :]
    return {"bitmask": {"width": width, "height": height, "rows": rows}}


def debris(rng, n):
    shapes = []
    for _ in range(48):
        radius = min(30.0, math.exp(rng.gauss(1.2, 0.7)))
        shapes.append(convex_polygon(rng, radius, rng.randint(3, 12)))
    slab = {"polygon": [[-150.0, -6.0], [150.0, -6.0], [150.0, 6.0], [-150.0, 6.0]]}
    shapes += [slab, slab, slab]
    side = math.sqrt(n) * 12.0
    bodies = []
    for i in range(n):
        shape = 48 + i % 3 if i < 6 else rng.randrange(48)
        bodies.append(
            {
                "shape": shape,
                "x": rng.uniform(0.0, side),
                "y": rng.uniform(0.0, side),
                "angle": rng.uniform(-4.0, 4.0),
            }
        )
    return shapes, bodies


def sprites(rng, n):
    shapes = []
    for _ in range(40):
        width = int(min(64, max(3, math.exp(rng.gauss(2.4, 0.6)))))
        height = int(min(64, max(3, width * rng.uniform(0.6, 1.5))))
        shapes.append(blob(rng, width, height))
    centres = [(rng.uniform(0, 1400), rng.uniform(0, 1400)) for _ in range(30)]
    bodies = []
    for _ in range(n):
        if rng.random() < 0.7:
            cx, cy = centres[rng.randrange(len(centres))]
        else:
            cx, cy = rng.uniform(0, 1400), rng.uniform(0, 1400)
        bodies.append(
            {
                "shape": rng.randrange(len(shapes)),
                "x": round(rng.gauss(cx, 60.0)),
                "y": round(rng.gauss(cy, 60.0)),
            }
        )
    return shapes, bodies


def swarm(rng, n):
    shapes = [{"circle": rng.uniform(0.5, 6.0)} for _ in range(12)]
    shapes += [convex_polygon(rng, rng.uniform(1.0, 9.0), rng.randint(3, 8)) for _ in range(12)]
    swarms = [
        (rng.uniform(0, 1500), rng.uniform(0, 1500), rng.uniform(30.0, 150.0)) for _ in range(25)
    ]
    bodies = []
    for _ in range(n):
        cx, cy, spread = swarms[rng.randrange(len(swarms))]
        bodies.append(
            {
                "shape": rng.randrange(len(shapes)),
                "x": rng.gauss(cx, spread),
                "y": rng.gauss(cy, spread),
                "angle": rng.uniform(-3.2, 3.2),
                "layer": 1 << rng.randrange(3),
                "mask": 7 if rng.random() < 0.8 else 1,
            }
        )
    return shapes, bodies


KINDS = {"debris": debris, "sprites": sprites, "swarm": swarm}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".", help="directory for the files")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds")
    parser.add_argument("--seeds", default="101,102", help="comma-separated seeds")
    parser.add_argument("--bodies", type=int, default=10000)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for kind in args.kinds.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            shapes, bodies = KINDS[kind](random.Random(seed), args.bodies)
            path = os.path.join(args.out, f"{kind}-{seed}.json")
            with open(path, "w") as f:
                json.dump({"shapes": shapes, "bodies": bodies}, f)
            print(path)


if __name__ == "__main__":
    main()
