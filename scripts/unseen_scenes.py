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

Three more kinds, of format 1.2, are made only when named (`--kinds
wreckage,barrage,flotilla`), for checking answers more than speed (`tests/scene_files.rs`
holds them to the oracle; the baselines take no concave or compound shape):

- `wreckage`: concave outlines of four makes (untangled random tours, which are not
  star-shaped; rectilinear skylines with straight vertices; thick spirals of up to 242
  vertices; triangles), sizes lognormal and one up to 1000 units wide, among circles,
  polygons and bitmasks, still.
- `barrage`: capsules of every form (lasers up to 1000 long, segments, points, circles)
  and half the bodies moving up to 400 units a frame through polygons, bitmasks and
  outlines, on two layers: every frame swept.
- `flotilla`: compound ships of 1 to 64 overlapping parts (polygons, circles, capsules,
  outlines, placed and turned), a tenth of them moving.

Vertices are multiples of 1/64, exact in f32, and every outline is checked simple here.

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


# Format 1.2 (capsules, concave outlines, compounds). Vertices are multiples of 1/64 so
# that they are exact in f32 and the simplicity check below is exact in f64.
GRID = 64.0


def snap(v):
    return round(v * GRID) / GRID


def orient(a, b, c):
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def on_segment(a, b, p):
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def segments_meet(a, b, c, d):
    """Whether the closed segments ab and cd share a point."""
    d1, d2, d3, d4 = orient(c, d, a), orient(c, d, b), orient(a, b, c), orient(a, b, d)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True
    return (
        (d1 == 0 and on_segment(c, d, a))
        or (d2 == 0 and on_segment(c, d, b))
        or (d3 == 0 and on_segment(a, b, c))
        or (d4 == 0 and on_segment(a, b, d))
    )


def is_simple(points):
    """The format's rule: no repeated vertex, non-zero area, and no two edges meeting
    except neighbours at their shared vertex (neighbours may not fold back)."""
    n = len(points)
    if n < 3 or len({tuple(p) for p in points}) < n:
        return False
    area = sum(orient((0.0, 0.0), points[k], points[(k + 1) % n]) for k in range(n))
    if area == 0:
        return False
    for i in range(n):
        a, b = points[i], points[(i + 1) % n]
        for j in range(i + 1, n):
            c, d = points[j], points[(j + 1) % n]
            if j == i + 1 or (i == 0 and j == n - 1):
                # Neighbours share one vertex; they must not overlap along a line.
                shared, other_a, other_b = (b, a, d) if j == i + 1 else (a, b, c)
                if orient(other_a, shared, other_b) == 0 and (
                    (other_a[0] - shared[0]) * (other_b[0] - shared[0])
                    + (other_a[1] - shared[1]) * (other_b[1] - shared[1])
                    > 0
                ):
                    return False
                continue
            if segments_meet(a, b, c, d):
                return False
    return True


def untangled(rng, count, size):
    """A general simple outline: random points joined in a random order, then crossing
    edges undone (each reversal shortens the tour, so it ends). Not star-shaped."""
    while True:
        points = list({(snap(rng.uniform(-size, size)), snap(rng.uniform(-size, size))) for _ in range(count)})
        rng.shuffle(points)
        n = len(points)
        for _ in range(50 * n):
            crossed = False
            for i in range(n):
                for j in range(i + 2, n):
                    if i == 0 and j == n - 1:
                        continue
                    a, b, c, d = points[i], points[i + 1], points[j], points[(j + 1) % n]
                    if segments_meet(a, b, c, d):
                        points[i + 1 : j + 1] = reversed(points[i + 1 : j + 1])
                        crossed = True
            if not crossed:
                break
        if is_simple(points):
            return [list(p) for p in points]


def skyline(rng, columns, width, height):
    """An x-monotone outline between a floor and a roof of random steps: rectilinear,
    with straight vertices where two steps are level."""
    step = snap(width / columns)
    roof, floor = [], []
    for k in range(columns):
        low = snap(rng.uniform(0.0, height * 0.4))
        high = snap(rng.uniform(height * 0.6, height))
        if k and rng.random() < 0.3:
            high = roof[-1][1]
        roof.append((k * step, high))
        floor.append((k * step, low))
    points = []
    for k, (x, y) in enumerate(floor):
        points += [(x, y), (x + step, y)]
    for k, (x, y) in reversed(list(enumerate(roof))):
        points += [(x + step, y), (x, y)]
    # Level neighbours make repeated vertices: keep one of each.
    outline = []
    for p in points:
        if not outline or outline[-1] != p:
            outline.append(p)
    if outline[0] == outline[-1]:
        outline.pop()
    return [list(p) for p in outline]


def spiral(rng, turns, arm, width, per_turn):
    """A thick spiral arm: far from star-shaped, every piece thin."""
    outer, inner = [], []
    steps = int(turns * per_turn)
    for k in range(steps + 1):
        t = 2.0 * math.pi * k / per_turn
        r = arm * (1.0 + t / (2.0 * math.pi))
        outer.append((snap((r + width) * math.cos(t)), snap((r + width) * math.sin(t))))
        inner.append((snap(r * math.cos(t)), snap(r * math.sin(t))))
    return [list(p) for p in outer + inner[::-1]]


def outline(rng, size):
    """One concave outline of one of four makes, 3 to 256 vertices."""
    make = rng.random()
    if make < 0.4:
        points = untangled(rng, rng.randint(4, 40), size)
    elif make < 0.7:
        points = skyline(rng, rng.randint(2, 60), 2.0 * size, size)
    elif make < 0.9:
        per_turn = rng.randint(8, 40)
        points = spiral(rng, rng.uniform(1.0, 3.0), size / 4.0, size / 10.0, per_turn)
    else:
        points = untangled(rng, 3, size)
    assert is_simple([tuple(p) for p in points]) and 3 <= len(points) <= 256, points
    return {"concave": points}


def capsule(rng, length, radius):
    a = [snap(rng.uniform(-2.0, 2.0)), snap(rng.uniform(-2.0, 2.0))]
    turn = rng.uniform(-math.pi, math.pi)
    if rng.random() < 0.3:
        turn = rng.choice([0.0, math.pi / 2])
    b = [snap(a[0] + length * math.cos(turn)), snap(a[1] + length * math.sin(turn))]
    return {"capsule": {"a": a, "b": b, "radius": radius}}


def spread_bodies(rng, n, shapes, side, moving):
    """`n` bodies of `shapes` spread over a square of `side`, a fifth of them on whole
    coordinates and unturned, a share `moving` of the rest moving (bitmasks never)."""
    bodies = []
    for _ in range(n):
        body = {
            "shape": rng.randrange(len(shapes)),
            "x": rng.uniform(0.0, side),
            "y": rng.uniform(0.0, side),
            "angle": rng.uniform(-3.2, 3.2),
        }
        if "bitmask" in shapes[body["shape"]]:
            body.update(x=float(round(body["x"])), y=float(round(body["y"])), angle=0.0)
            bodies.append(body)
            continue
        if rng.random() < 0.2:
            # On the grid, unturned: exact touching and shared sides.
            body.update(x=float(round(body["x"])), y=float(round(body["y"])), angle=0.0)
        if moving and rng.random() < moving:
            speed = math.exp(rng.uniform(0.0, 6.0))
            turn = rng.uniform(-math.pi, math.pi)
            body.update(vx=speed * math.cos(turn), vy=speed * math.sin(turn))
        bodies.append(body)
    return bodies


def wreckage(rng, n):
    """Concave outlines of many makes and sizes (a few near the 1024-unit width), among
    circles, convex polygons and bitmasks, still."""
    shapes = []
    for k in range(40):
        size = min(400.0, math.exp(rng.gauss(2.0, 0.8))) if k else 450.0
        shapes.append(outline(rng, size))
    shapes += [{"circle": rng.uniform(0.5, 8.0)} for _ in range(4)]
    shapes += [convex_polygon(rng, rng.uniform(1.0, 10.0), rng.randint(3, 8)) for _ in range(4)]
    shapes += [blob(rng, rng.randint(3, 24), rng.randint(3, 24)) for _ in range(4)]
    return shapes, spread_bodies(rng, n, shapes, math.sqrt(n) * 14.0, 0.0)


def barrage(rng, n):
    """Capsules of every form (lasers up to 1000 long, segments, points, round-ended
    circles) moving up to 400 units a frame through polygons, circles, bitmasks and
    concave outlines: every frame swept."""
    shapes = []
    for _ in range(10):
        shapes.append(capsule(rng, math.exp(rng.uniform(0.0, math.log(1000.0))), rng.choice([0.0, 0.25, 1.0, 3.0])))
    shapes += [capsule(rng, 0.0, 0.0) for _ in range(3)]
    shapes += [capsule(rng, 0.0, rng.uniform(0.5, 4.0)) for _ in range(3)]
    shapes += [convex_polygon(rng, rng.uniform(2.0, 20.0), rng.randint(3, 8)) for _ in range(4)]
    shapes += [{"circle": rng.uniform(1.0, 12.0)} for _ in range(3)]
    shapes += [blob(rng, rng.randint(4, 32), rng.randint(4, 32)) for _ in range(3)]
    shapes += [outline(rng, rng.uniform(5.0, 40.0)) for _ in range(4)]
    bodies = spread_bodies(rng, n, shapes, math.sqrt(n) * 20.0, 0.5)
    for body in bodies:
        if rng.random() < 0.5:
            body.update(layer=1 << rng.randrange(2), mask=rng.choice([1, 2, 3]))
    return shapes, bodies


def flotilla(rng, n):
    """Compound ships of 1 to 64 overlapping parts (polygons, circles, capsules and
    concave outlines, placed and turned), some moving, among smaller debris."""
    parts = [convex_polygon(rng, rng.uniform(1.0, 6.0), rng.randint(3, 8)) for _ in range(6)]
    parts += [{"circle": rng.uniform(0.5, 4.0)} for _ in range(3)]
    parts += [capsule(rng, rng.uniform(0.0, 30.0), rng.choice([0.0, 0.5, 2.0])) for _ in range(4)]
    parts += [outline(rng, rng.uniform(3.0, 20.0)) for _ in range(5)]
    shapes = list(parts)
    for k in range(12):
        count = 64 if k == 0 else rng.randint(1, 24)
        spread = rng.uniform(2.0, 40.0)
        ship = []
        for _ in range(count):
            part = {"shape": rng.randrange(len(parts)), "x": snap(rng.gauss(0.0, spread)), "y": snap(rng.gauss(0.0, spread))}
            if rng.random() < 0.7:
                part["angle"] = rng.uniform(-3.2, 3.2)
            ship.append(part)
        shapes.append({"compound": ship})
    shapes += [blob(rng, rng.randint(3, 16), rng.randint(3, 16)) for _ in range(2)]
    return shapes, spread_bodies(rng, n, shapes, math.sqrt(n) * 25.0, 0.1)


KINDS = {
    "debris": debris,
    "sprites": sprites,
    "swarm": swarm,
    "wreckage": wreckage,
    "barrage": barrage,
    "flotilla": flotilla,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".", help="directory for the files")
    parser.add_argument("--kinds", default="debris,sprites,swarm", help="comma-separated kinds")
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
