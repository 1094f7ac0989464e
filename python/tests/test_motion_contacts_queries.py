"""Collider.find_swept_pairs, find_pairs with velocities, find_contacts and query: known
answers (docs/scene-format.md's example among them), random scenes against exact answers
computed here, refused inputs, and the gpu backend answering as the cpu does."""

import itertools
import math
import random

import numpy as np
import pygame
import pytest

from conftest import require_gpu
from gpu_collide import Bitmask, Circle, Collider, Contacts, Polygon, QueryAnswers, SweptPairs

SQUARE = Polygon([(-1, -1), (1, -1), (1, 1), (-1, 1)])


def example():
    """docs/scene-format.md's version 1.1 example: a bullet (circle) crossing a wall."""
    collider = Collider([Circle(1.0), Polygon([(-4, -1), (4, -1), (4, 1), (-4, 1)])], backend="cpu")
    bodies = dict(
        shape_ids=[0, 1],
        positions=[[0, 0], [15, 0]],
        angles=[0, 1.5707963],
        layers=[2, 1],
        masks=[1, 2],
    )
    return collider, bodies


def test_the_bullet_meets_the_wall_at_13_30():
    collider, bodies = example()
    velocities = np.array([[30, 0], [0, 0]])
    swept = collider.find_swept_pairs(velocities=velocities, **bodies)
    assert isinstance(swept, SweptPairs)
    assert swept.pairs.dtype == np.uint32 and swept.pairs.tolist() == [[0, 1]]
    assert swept.toi.dtype == np.float32 and swept.toi.shape == (1,)
    assert abs(float(swept.toi[0]) - 13 / 30) <= 0.01 / 30 + 1e-4
    # find_pairs answers the swept question when something moves, the still one otherwise.
    assert collider.find_pairs(**bodies, velocities=velocities).tolist() == [[0, 1]]
    for dtype in (np.float32, np.float64):
        again = collider.find_swept_pairs(velocities=velocities.astype(dtype), **bodies)
        assert again.pairs.tolist() == [[0, 1]] and again.toi.tolist() == swept.toi.tolist()
        assert collider.find_pairs(**bodies, velocities=velocities.astype(dtype)).tolist() == [[0, 1]]
    assert collider.find_pairs(**bodies).tolist() == []
    assert collider.find_pairs(**bodies, velocities=np.zeros((2, 2))).tolist() == []
    still = collider.find_swept_pairs(velocities=np.zeros((2, 2), np.float32), **bodies)
    assert still.pairs.shape == (0, 2) and still.toi.shape == (0,)


def test_the_examples_queries():
    collider, bodies = example()
    answers = collider.query(
        **bodies, rays=[[-10, 0.5, 40, 0]], ray_masks=[1], points=[[15, 3]], boxes=[[-2, -2, 2, 2]], box_masks=[0xFFFFFFFF]
    )
    assert isinstance(answers, QueryAnswers)
    assert answers.ray_body.dtype == np.int64 and answers.ray_body.tolist() == [1]
    assert answers.ray_t.dtype == np.float32 and abs(float(answers.ray_t[0]) - 0.6) <= 0.01 / 40
    assert answers.ray_normal.dtype == np.float32 and answers.ray_normal.shape == (1, 2)
    assert np.allclose(answers.ray_normal, [[-1, 0]], atol=1e-5)
    assert answers.point_offsets.dtype == np.int64 and answers.point_offsets.tolist() == [0, 1]
    assert answers.point_bodies.dtype == np.uint32 and answers.point_bodies.tolist() == [1]
    assert answers.box_offsets.tolist() == [0, 1] and answers.box_bodies.tolist() == [0]


def test_swept_pairs_already_touching_are_at_zero_and_layers_filter():
    collider = Collider([Circle(1.0)], backend="cpu")
    swept = collider.find_swept_pairs([0, 0, 0], [[0, 0], [1, 0], [10, 0]], [[0, 0], [5, 0], [-20, 0]])
    assert swept.pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert swept.toi[0] == 0
    # Body 2 reaches body 0's edge (x = 1) at centre 2: t = 8/20; body 1 starts at 1 and
    # moves right by 5t while 2 moves left by 20t: they meet when 9 - 25t = 2.
    assert abs(float(swept.toi[1]) - 8 / 20) <= 0.01 / 20 + 1e-4
    assert abs(float(swept.toi[2]) - 7 / 25) <= 0.01 / 25 + 1e-4
    filtered = collider.find_swept_pairs(
        [0, 0, 0], [[0, 0], [1, 0], [10, 0]], [[0, 0], [5, 0], [-20, 0]], layers=[1, 1, 2], masks=[1, 1, 1]
    )
    assert filtered.pairs.tolist() == [[0, 1]]


def test_a_square_pushed_into_a_square():
    collider = Collider([SQUARE, Circle(1.0)], backend="cpu")
    contacts = collider.find_contacts([0, 0, 1, 1], [[0, 0], [1.5, 0], [20, 0], [20, 1.75]])
    assert isinstance(contacts, Contacts)
    assert contacts.pairs.dtype == np.uint32 and contacts.pairs.tolist() == [[0, 1], [2, 3]]
    assert contacts.normals.dtype == np.float32 and contacts.normals.shape == (2, 2)
    assert contacts.depths.dtype == np.float32 and contacts.areas.dtype == np.int64
    assert np.allclose(contacts.normals, [[1, 0], [0, 1]], atol=0.01)
    assert np.allclose(contacts.depths, [0.5, 0.25], atol=0.01)
    assert contacts.areas.tolist() == [-1, -1]
    # Velocities play no part in contacts: the pairs are those at t = 0.
    assert collider.find_pairs([0, 0, 1, 1], [[0, 0], [1.5, 0], [20, 0], [20, 1.75]]).tolist() == [[0, 1], [2, 3]]


def test_a_bitmask_pair_has_an_area_and_nan_normal_and_depth():
    block = Bitmask(np.ones((4, 4), dtype=bool))
    collider = Collider([block, SQUARE], backend="cpu")
    contacts = collider.find_contacts([0, 0, 1, 1], [[0, 0], [2, 1], [50, 50], [51, 50]])
    assert contacts.pairs.tolist() == [[0, 1], [2, 3]]
    assert contacts.areas.tolist() == [6, -1]
    assert np.isnan(contacts.normals[0]).all() and np.isnan(contacts.depths[0])
    assert not np.isnan(contacts.normals[1]).any() and abs(float(contacts.depths[1]) - 1) <= 0.01


def test_two_bitmasks_area_is_pygames_overlap_area():
    rng = random.Random(11)
    shapes, pg_masks = [], []
    for width, height in [(1, 1), (33, 4), (45, 9), (70, 3), (20, 20)]:
        array = np.array([[rng.random() < 0.5 for _ in range(width)] for _ in range(height)])
        array[0, 0] = True
        shapes.append(Bitmask(array))
        mask = pygame.mask.Mask((width, height))
        for y, x in zip(*array.nonzero()):
            mask.set_at((int(x), int(y)))
        pg_masks.append(mask)
    n = 120
    ids = np.array([rng.randrange(len(shapes)) for _ in range(n)])
    positions = np.array([[rng.randint(-60, 60), rng.randint(-30, 30)] for _ in range(n)])
    contacts = Collider(shapes, backend="cpu").find_contacts(ids, positions)
    expected = {}
    for i, j in itertools.combinations(range(n), 2):
        offset = tuple(int(v) for v in positions[j] - positions[i])
        area = pg_masks[ids[i]].overlap_area(pg_masks[ids[j]], offset)
        if area:
            expected[(i, j)] = area
    got = {(int(i), int(j)): int(a) for (i, j), a in zip(contacts.pairs, contacts.areas)}
    assert got == expected
    assert len(expected) > 30
    assert np.isnan(contacts.depths).all() and np.isnan(contacts.normals).all()


def test_a_ray_stops_at_the_first_body():
    collider = Collider([Circle(1.0), SQUARE], backend="cpu")
    ids, positions = [0, 0, 1], [[5, 0], [10, 0], [15, 0]]
    answers = collider.query(
        ids,
        positions,
        layers=[1, 2, 2],
        rays=np.array([[0, 0, 20, 0], [0, 0, 20, 0], [0, 5, 20, 0], [5, 0.5, 1, 0], [20, 0, -10, 0]]),
        ray_masks=[0xFFFFFFFF, 2, 0xFFFFFFFF, 1, 2],
    )
    assert answers.ray_body.tolist() == [0, 1, -1, 0, 2]
    t = answers.ray_t
    assert abs(t[0] - 4 / 20) < 1e-3 and abs(t[1] - 9 / 20) < 1e-3 and np.isnan(t[2])
    assert t[3] == 0 and abs(t[4] - 4 / 10) < 1e-3
    normals = answers.ray_normal
    assert np.allclose(normals[[0, 1]], [[-1, 0], [-1, 0]], atol=1e-3)
    assert np.isnan(normals[2]).all()  # no hit
    assert np.isnan(normals[3]).all()  # starts inside: no side crossed
    assert np.allclose(normals[4], [1, 0], atol=1e-3)
    assert answers.point_offsets.tolist() == [0] and answers.point_bodies.shape == (0,)
    assert answers.box_offsets.tolist() == [0] and answers.box_bodies.shape == (0,)


def test_a_point_on_an_edge_is_inside_and_boxes_meet_shapes_not_bounds():
    collider = Collider([SQUARE, Circle(1.0)], backend="cpu")
    answers = collider.query(
        [0, 0, 1],
        [[0, 0], [2, 0], [10, 0]],
        points=[[1, 0], [1, 1], [0, 0], [1.5, 5], [10, 1]],
        point_masks=[1, 1, 1, 1, 0xFFFFFFFF],
        boxes=[[-0.5, -0.5, 0.5, 0.5], [10.8, 0.8, 12, 2], [3, 0, 3, 0], [-5, -5, 20, 5]],
    )
    assert answers.point_offsets.tolist() == [0, 2, 4, 5, 5, 6]
    assert answers.point_bodies.tolist() == [0, 1, 0, 1, 0, 2]
    # The box near the circle's diagonal is outside it; a degenerate box is a point.
    assert answers.box_offsets.tolist() == [0, 1, 1, 2, 5]
    assert answers.box_bodies.tolist() == [0, 1, 0, 1, 2]
    per_point = np.split(answers.point_bodies, answers.point_offsets[1:-1])
    assert [p.tolist() for p in per_point] == [[0, 1], [0, 1], [0], [], [2]]


def test_nothing_to_ask_and_no_bodies():
    collider = Collider([SQUARE], backend="cpu")
    answers = collider.query([0], [[0, 0]])
    assert [a.shape for a in answers] == [(0,), (0,), (0, 2), (1,), (0,), (1,), (0,)]
    answers = collider.query(np.zeros(0, int), np.zeros((0, 2)), rays=[[0, 0, 1, 0]], points=[[0, 0]])
    assert answers.ray_body.tolist() == [-1] and answers.point_offsets.tolist() == [0, 0]
    contacts = collider.find_contacts([], np.zeros((0, 2)))
    assert [a.shape for a in contacts] == [(0, 2), (0, 2), (0,), (0,), (0, 2)]
    swept = collider.find_swept_pairs([], np.zeros((0, 2)), np.zeros((0, 2)))
    assert swept.pairs.shape == (0, 2) and swept.toi.shape == (0,)


def random_circles(seed, n, radius, spread):
    rng = np.random.default_rng(seed)
    positions = rng.uniform(-spread, spread, size=(n, 2)).astype(np.float32)
    velocities = rng.uniform(-8, 8, size=(n, 2)).astype(np.float32)
    velocities[rng.random(n) < 0.3] = 0
    return positions, velocities


def test_random_swept_circles_match_the_exact_times():
    radius = 1.5
    positions, velocities = random_circles(5, 300, radius, 60)
    collider = Collider([Circle(radius)], backend="cpu")
    ids = np.zeros(len(positions), dtype=np.int64)
    swept = collider.find_swept_pairs(ids, positions, velocities)
    assert swept.pairs.tolist() == collider.find_pairs(ids, positions, velocities=velocities).tolist()
    got = {(int(i), int(j)): float(t) for (i, j), t in zip(swept.pairs, swept.toi)}
    sure = 0
    for i, j in itertools.combinations(range(len(positions)), 2):
        p = positions[j].astype(np.float64) - positions[i]
        v = velocities[j].astype(np.float64) - velocities[i]
        reach = 2 * radius
        # Closest approach over t in [0, 1], then the first t at distance `reach`.
        vv = float(v @ v)
        t_close = 0.0 if vv == 0 else min(1.0, max(0.0, -float(p @ v) / vv))
        closest = float(np.hypot(*(p + t_close * v)))
        if abs(closest - reach) <= 0.01:
            continue  # the band: either answer is right
        if closest > reach:
            assert (i, j) not in got
            continue
        sure += 1
        assert (i, j) in got
        if math.hypot(*p) <= reach:
            toi = 0.0
        else:
            pv, pp = float(p @ v), float(p @ p)
            toi = (-pv - math.sqrt(pv * pv - vv * (pp - reach * reach))) / vv
        assert abs(got[(i, j)] - toi) <= 0.01 / math.sqrt(vv) + 1e-4 if vv else got[(i, j)] == 0
    assert sure > 40


def test_random_circle_contacts_match_the_exact_depths():
    radius = 2.0
    positions, _ = random_circles(6, 300, radius, 50)
    contacts = Collider([Circle(radius)], backend="cpu").find_contacts(np.zeros(300, int), positions)
    assert len(contacts.pairs) > 40
    d = positions[contacts.pairs[:, 1]].astype(np.float64) - positions[contacts.pairs[:, 0]]
    distance = np.hypot(d[:, 0], d[:, 1])
    assert np.allclose(contacts.depths, 2 * radius - distance, atol=0.01)
    away = distance > 0.1
    assert np.allclose(contacts.normals[away], d[away] / distance[away, None], atol=0.01)
    assert (contacts.areas == -1).all()


def test_random_point_and_ray_queries_on_circles():
    radius = 2.0
    positions, _ = random_circles(7, 200, radius, 40)
    collider = Collider([Circle(radius)], backend="cpu")
    rng = np.random.default_rng(8)
    points = rng.uniform(-45, 45, size=(300, 2))
    rays = np.hstack([rng.uniform(-45, 45, size=(100, 2)), rng.uniform(-30, 30, size=(100, 2))])
    answers = collider.query(np.zeros(200, int), positions, points=points, rays=rays)
    centres = positions.astype(np.float64)
    for k, point in enumerate(points.astype(np.float32).astype(np.float64)):
        distance = np.hypot(*(centres - point).T)
        listed = set(answers.point_bodies[answers.point_offsets[k] : answers.point_offsets[k + 1]].tolist())
        sure = set(np.flatnonzero(distance < radius - 0.01).tolist())
        maybe = set(np.flatnonzero(distance <= radius + 0.01).tolist())
        assert sure <= listed <= maybe
    hits = 0
    for k, ray in enumerate(rays.astype(np.float32).astype(np.float64)):
        o, delta = ray[:2], ray[2:]
        # First t in [0, 1] at which |o + t delta - c| = radius, per circle.
        f = o - centres
        a = delta @ delta
        b = f @ delta
        c = np.einsum("ij,ij->i", f, f) - radius**2
        disc = b * b - a * c
        ts = np.where(c <= 0, 0.0, (-b - np.sqrt(np.maximum(disc, 0))) / a)
        along = np.clip(-b / a, 0, 1)
        closest = np.hypot(*(f + along[:, None] * delta).T)
        sure, maybe = closest < radius - 0.01, closest <= radius + 0.01
        tol = 0.01 / math.sqrt(a) + 1e-4
        body, t = int(answers.ray_body[k]), float(answers.ray_t[k])
        if body == -1:
            assert not sure.any() and np.isnan(t)
            continue
        assert maybe[body]
        if sure.any():
            assert t <= ts[sure].min() + tol
        if sure[body]:
            assert abs(t - ts[body]) <= tol
        hits += sure.any()
    assert hits > 20


def test_refused_queries_name_the_query():
    collider = Collider([SQUARE], backend="cpu")
    body = ([0], [[0, 0]])
    with pytest.raises(ValueError, match=r"^ray 3: dx, dy: zero length"):
        collider.query(*body, rays=[[0, 0, 1, 0]] * 3 + [[0, 0, 0, 0]])
    with pytest.raises(ValueError, match=r"^box 0: min, max: min is greater than max on x \(2 > 1\)"):
        collider.query(*body, boxes=[[2, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"^point 2: x: inf is not a finite"):
        collider.query(*body, points=[[0, 0], [1, 1], [np.inf, 0]])
    with pytest.raises(ValueError, match=r"^point 0: y: .* not a finite"):
        collider.query(*body, points=[[0, 1e39]])
    with pytest.raises(ValueError, match=r"^ray 1: mask: -1 is not a 32-bit unsigned value"):
        collider.query(*body, rays=[[0, 0, 1, 0]] * 2, ray_masks=[1, -1])
    with pytest.raises(ValueError, match=r"rays must have shape \(K, 4\)"):
        collider.query(*body, rays=[[0, 0, 1]])
    with pytest.raises(ValueError, match=r"boxes must have shape \(K, 4\)"):
        collider.query(*body, boxes=[0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"point_masks must have shape \(1,\)"):
        collider.query(*body, points=[[0, 0]], point_masks=[1, 2])
    with pytest.raises(TypeError, match=r"rays must be floats or integers"):
        collider.query(*body, rays=[["a", "b", "c", "d"]])
    with pytest.raises(TypeError, match=r"box_masks must be integers"):
        collider.query(*body, boxes=[[0, 0, 1, 1]], box_masks=[1.5])


def test_refused_bodies_and_velocities():
    collider = Collider([SQUARE, Bitmask(np.ones((2, 2), bool))], backend="cpu")
    with pytest.raises(ValueError, match=r"^body 1: vx: a bitmask body cannot move"):
        collider.find_swept_pairs([0, 1], [[0, 0], [5, 5]], [[1, 0], [2, 0]])
    with pytest.raises(ValueError, match=r"^body 1: vx: a bitmask body cannot move"):
        collider.find_pairs([0, 1], [[0, 0], [5, 5]], velocities=[[1, 0], [2, 0]])
    with pytest.raises(ValueError, match=r"^body 0: vy: .*finite"):
        collider.find_swept_pairs([0], [[0, 0]], [[1, np.nan]])
    with pytest.raises(ValueError, match=r"velocities must have shape \(2, 2\)"):
        collider.find_swept_pairs([0, 0], [[0, 0], [5, 5]], [[1, 0]])
    with pytest.raises(TypeError, match=r"velocities must be floats or integers"):
        collider.find_pairs([0], [[0, 0]], velocities=[["x", "y"]])
    with pytest.raises(IndexError, match=r"^body 0: shape: 7"):
        collider.find_contacts([7], [[0, 0]])
    with pytest.raises(ValueError, match=r"angles must have shape \(1,\)"):
        collider.find_contacts([0], [[0, 0]], angles=[0, 1])
    with pytest.raises(IndexError, match=r"^body 0: shape: 7"):
        collider.query([7], [[0, 0]], points=[[0, 0]])


def test_the_gpu_backend_answers_format_1_1_as_the_cpu_does():
    require_gpu()
    collider = Collider([SQUARE], backend="gpu")
    ids, positions = [0, 0], [[0, 0], [1.5, 0]]
    moving = [[0, 0], [3, 0]]
    assert collider.find_pairs(ids, positions).tolist() == [[0, 1]]
    assert collider.find_pairs(ids, positions, velocities=np.zeros((2, 2))).tolist() == [[0, 1]]
    # Swept pairs: the gpu answers like the cpu.
    assert collider.find_pairs(ids, positions, velocities=moving).tolist() == [[0, 1]]
    cpu_swept = Collider([SQUARE], backend="cpu").find_swept_pairs(ids, positions, moving)
    gpu_swept = collider.find_swept_pairs(ids, positions, moving)
    assert gpu_swept.pairs.tolist() == cpu_swept.pairs.tolist() == [[0, 1]]
    assert np.allclose(gpu_swept.toi, cpu_swept.toi, atol=1e-4)
    _, bodies = example()
    gpu_bullet = Collider([Circle(1.0), Polygon([(-4, -1), (4, -1), (4, 1), (-4, 1)])], backend="gpu")
    bullet = gpu_bullet.find_swept_pairs(velocities=[[30, 0], [0, 0]], **bodies)
    assert bullet.pairs.tolist() == [[0, 1]] and abs(float(bullet.toi[0]) - 13 / 30) <= 0.01 / 30 + 1e-4
    # Contacts the gpu answers as the cpu does.
    contacts = collider.find_contacts(ids, positions)
    expected = Collider([SQUARE], backend="cpu").find_contacts(ids, positions)
    assert contacts.pairs.tolist() == expected.pairs.tolist() == [[0, 1]]
    assert np.allclose(contacts.normals, expected.normals, atol=0.01)
    assert np.allclose(contacts.depths, expected.depths, atol=0.01)
    assert contacts.areas.tolist() == expected.areas.tolist()
    # Queries the gpu answers, as the cpu does.
    gpu_hits = collider.query(ids, positions, points=[[0, 0]], rays=[[-5, 0.5, 10, 0]])
    cpu_hits = Collider([SQUARE], backend="cpu").query(ids, positions, points=[[0, 0]], rays=[[-5, 0.5, 10, 0]])
    assert gpu_hits.point_bodies.tolist() == cpu_hits.point_bodies.tolist()
    assert gpu_hits.point_offsets.tolist() == cpu_hits.point_offsets.tolist()
    assert gpu_hits.ray_body.tolist() == cpu_hits.ray_body.tolist()
    assert np.allclose(gpu_hits.ray_t, cpu_hits.ray_t, atol=1e-5)
    # The collider still finds plain pairs afterwards.
    assert collider.find_pairs(ids, positions).tolist() == [[0, 1]]
