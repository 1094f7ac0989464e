"""Collider.find_pairs on numpy arrays: answers on both backends, and every refused
input as the Python exception that fits it, with the library's message."""

import itertools
import random

import numpy as np
import pygame
import pytest

import gpu_collide
from gpu_collide import Bitmask, Circle, Collider, Polygon


def brute_circle_pairs(positions, radius):
    """Pairs of equal circles that overlap or touch, and those within the library's
    0.01 rounding band (which it may report either way)."""
    sure, either = set(), set()
    for i, j in itertools.combinations(range(len(positions)), 2):
        d = float(np.hypot(*(positions[i].astype(np.float64) - positions[j])))
        if abs(d - 2 * radius) <= 0.01:
            either.add((i, j))
        elif d < 2 * radius:
            sure.add((i, j))
    return sure, either


def test_random_circles_match_brute_force(backend):
    rng = np.random.default_rng(3)
    positions = rng.uniform(-50, 50, size=(400, 2)).astype(np.float32)
    collider = Collider([Circle(2.0)], backend=backend)
    pairs = collider.find_pairs(np.zeros(400, dtype=np.int64), positions)
    assert pairs.dtype == np.uint32 and pairs.ndim == 2 and pairs.shape[1] == 2
    got = {tuple(map(int, p)) for p in pairs}
    assert len(got) == len(pairs) and all(i < j for i, j in got)
    assert pairs.tolist() == sorted(pairs.tolist())
    sure, either = brute_circle_pairs(positions, 2.0)
    assert sure <= got <= sure | either
    assert len(sure) > 50


def test_bitmask_bodies_collide_exactly_when_pygame_masks_overlap(backend):
    rng = random.Random(4)
    shapes, pg_masks = [], []
    for width, height in [(1, 1), (33, 4), (45, 9), (70, 3), (64, 64)]:
        array = np.array([[rng.random() < 0.4 for _ in range(width)] for _ in range(height)])
        array[0, 0] = True
        shapes.append(Bitmask(array.astype(np.uint8)))
        mask = pygame.mask.Mask((width, height))
        for y, x in zip(*array.nonzero()):
            mask.set_at((int(x), int(y)))
        pg_masks.append(mask)
    n = 150
    ids = np.array([rng.randrange(len(shapes)) for _ in range(n)])
    positions = np.array([[rng.randint(-80, 80), rng.randint(-40, 40)] for _ in range(n)])
    pairs = Collider(shapes, backend=backend).find_pairs(ids, positions)
    expected = [
        [i, j]
        for i, j in itertools.combinations(range(n), 2)
        if pg_masks[ids[i]].overlap(pg_masks[ids[j]], tuple(positions[j] - positions[i])) is not None
    ]
    assert pairs.tolist() == expected
    assert expected


def test_angles_layers_and_masks(backend):
    bar = Polygon([(-5, -0.5), (5, -0.5), (5, 0.5), (-5, 0.5)])
    collider = Collider([bar, Circle(0.5)], backend=backend)
    positions = [[0, 0], [0, 3], [20, 0], [20, 0]]
    # Unrotated, the bar misses the circle 3 above it; turned a quarter it reaches it.
    assert collider.find_pairs([0, 1, 1, 1], positions).tolist() == [[2, 3]]
    assert collider.find_pairs([0, 1, 1, 1], positions, angles=[np.pi / 2, 0, 0, 0]).tolist() == [[0, 1], [2, 3]]
    # The bar is the player (layer 1); the circles are bullets (layer 2) that only
    # collide with layer 1, so bullets 2 and 3 no longer meet.
    layers = np.array([1, 2, 2, 2], dtype=np.uint64)
    masks = np.array([2, 1, 1, 1])
    assert collider.find_pairs([0, 1, 1, 1], positions, [np.pi / 2, 0, 0, 0], layers, masks).tolist() == [[0, 1]]
    assert collider.find_pairs([], np.zeros((0, 2))).shape == (0, 2)


def test_backends_agree_on_a_mixed_scene():
    from conftest import require_gpu

    require_gpu()
    rng = np.random.default_rng(8)
    shapes = [Circle(1.5), Polygon([(0, 0), (3, 0), (0, 2)]), Bitmask(rng.random((9, 40)) < 0.3)]
    n = 2000
    ids = rng.integers(0, 3, n)
    positions = rng.integers(-200, 200, size=(n, 2)).astype(np.float64)
    angles = np.where(ids == 2, 0.0, rng.uniform(-3, 3, n))
    cpu = Collider(shapes, backend="cpu").find_pairs(ids, positions, angles)
    gpu = Collider(shapes, backend="gpu").find_pairs(ids, positions, angles)
    assert len(cpu) > 100
    assert np.array_equal(cpu, gpu)


def test_array_errors_raise_fitting_exceptions():
    collider = Collider([Circle(1.0), Bitmask(np.ones((2, 2), bool))], backend="cpu")
    ok_pos = np.zeros((3, 2))
    cases = [
        (TypeError, "shape_ids must be integers, not float64", ([0.0, 1.0, 0.0], ok_pos)),
        (ValueError, r"shape_ids must be 1D", (np.zeros((3, 1), int), ok_pos)),
        (IndexError, r"body 1: shape: 5 is not a shape index \(the library has 2 shapes\)", ([0, 5, 0], ok_pos)),
        (IndexError, r"body 2: shape: -1 is not a shape index", ([0, 0, -1], ok_pos)),
        (TypeError, "positions must be floats or integers, not bool", ([0, 0, 0], np.zeros((3, 2), bool))),
        (TypeError, "positions must be floats or integers", ([0, 0, 0], [["a", "b"]] * 3)),
        (ValueError, r"positions must have shape \(3, 2\), not \(3, 3\)", ([0, 0, 0], np.zeros((3, 3)))),
        (ValueError, r"positions must have shape \(3, 2\), not \(2, 2\)", ([0, 0, 0], np.zeros((2, 2)))),
        (ValueError, "body 1: x: NaN is not a finite 32-bit number", ([0, 0, 0], [[0, 0], [np.nan, 0], [0, 0]])),
        (ValueError, "body 0: y: inf is not a finite", ([0, 0, 0], [[0, 1e300], [0, 0], [0, 0]])),
        (ValueError, r"angles must have shape \(3,\)", ([0, 0, 0], ok_pos, [0.0, 0.0])),
        (ValueError, r"body 2: angle: a bitmask body cannot be rotated \(angle 0.5\)", ([0, 0, 1], ok_pos, [0, 0, 0.5])),
        (ValueError, "body 0: x: a bitmask body must sit on a whole number", ([1, 0, 0], [[0.5, 0], [0, 0], [0, 0]])),
        (ValueError, "body 1: layer: -1 is not a 32-bit unsigned value", ([0, 0, 0], ok_pos, None, [1, -1, 1])),
        (ValueError, "body 0: mask: 4294967296 is not a 32-bit", ([0, 0, 0], ok_pos, None, None, [2**32, 1, 1])),
        (TypeError, "layers must be integers, not float64", ([0, 0, 0], ok_pos, None, [1.0, 1.0, 1.0])),
    ]
    for error, message, args in cases:
        with pytest.raises(error, match=message):
            collider.find_pairs(*args)


def test_polygon_vertices_may_be_tuples_lists_arrays_or_vectors():
    expected = [(0.0, 0.0), (3.0, 0.0), (0.0, 2.0)]
    assert Polygon([(0, 0), (3, 0), (0, 2)]).vertices == expected
    assert Polygon([[0, 0], [3, 0], [0, 2]]).vertices == expected
    assert Polygon(np.array([[0, 0], [3, 0], [0, 2]])).vertices == expected
    assert Polygon([pygame.Vector2(0, 0), pygame.Vector2(3, 0), pygame.Vector2(0, 2)]).vertices == expected
    with pytest.raises(TypeError, match=r"sequence of \(x, y\) pairs, not list"):
        Polygon([[0, 0, 1], [3, 0, 1], [0, 2, 1]])
    with pytest.raises(TypeError, match=r"sequence of \(x, y\) pairs, not str"):
        Polygon("abc")


def test_shape_errors_raise_fitting_exceptions():
    with pytest.raises(ValueError, match=r"shape 1: polygon: is not convex \(vertex"):
        Collider([Circle(1.0), Polygon([(0, 0), (4, 0), (1, 1), (0, 4)])], backend="cpu")
    with pytest.raises(ValueError, match="shape 0: circle: radius -1 must be finite and greater than 0"):
        Collider([Circle(-1.0)], backend="cpu")
    with pytest.raises(TypeError, match="shape 0: expected a Polygon, Circle, Capsule, Concave, Compound or Bitmask, not int"):
        Collider([3], backend="cpu")
    with pytest.raises(ValueError, match="polygon vertices must have shape"):
        Polygon(np.zeros((4, 3)))
    with pytest.raises(TypeError, match="dtype bool or uint8, not float64"):
        Bitmask(np.ones((3, 3)))
    with pytest.raises(TypeError, match="dtype bool or uint8, not int64"):
        Bitmask(np.ones((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="must be 2D"):
        Bitmask(np.ones((3, 3, 3), bool))
    with pytest.raises(ValueError, match=r"bitmask: height 0 is outside 1..=8192"):
        Bitmask(np.ones((0, 3), bool))
    with pytest.raises(ValueError, match=r"width 9000 is outside"):
        Bitmask(np.ones((1, 9000), bool))
    with pytest.raises(TypeError, match="pygame.mask.Mask or a gpu_collide.Bitmask, not str"):
        Bitmask("###")
    with pytest.raises(ValueError, match='backend must be "auto", "gpu" or "cpu"'):
        Collider([Circle(1.0)], backend="cuda")


def test_bitmask_round_trips():
    rng = np.random.default_rng(2)
    for shape in [(1, 1), (3, 33), (7, 45), (2, 70), (5, 64)]:
        array = rng.random(shape) < 0.5
        assert np.array_equal(Bitmask(array).to_array(), array)
        assert np.array_equal(Bitmask(array.astype(np.uint8) * 255).to_array(), array)
        # Views with strides are read as the pixels they show.
        assert np.array_equal(Bitmask(array.T.copy().T).to_array(), array)
        mask = pygame.mask.Mask((shape[1], shape[0]))
        for y, x in zip(*array.nonzero()):
            mask.set_at((int(x), int(y)))
        bm = Bitmask(mask)
        assert (bm.width, bm.height, bm.count()) == (shape[1], shape[0], int(array.sum()))
        assert np.array_equal(bm.to_array(), array)
    big = Bitmask(np.ones((4, 10), bool)[::2, ::3])
    assert big.to_array().shape == (2, 4)


def test_auto_takes_the_gpu_only_when_it_is_hardware():
    try:
        adapter = gpu_collide.gpu_adapter()
    except RuntimeError:
        adapter = None
    # describe_adapter prints "(backend, device type, driver ...)"; llvmpipe, lavapipe
    # and WARP are of type Cpu.
    expected = "gpu" if adapter is not None and ", Cpu," not in adapter else "cpu"
    assert Collider([Circle(1.0)], backend="auto").backend == expected
    assert gpu_collide.SpriteCollider("auto").backend == expected
    assert Collider([Circle(1.0)], backend="cpu").backend == "cpu"


def test_touch_tracker_follows_ids_across_frames(backend):
    collider = Collider([Circle(1.0)], backend=backend)
    tracker = gpu_collide.TouchTracker()
    ids = np.array([7, 1000, 55])
    positions = np.array([[0.0, 0.0], [1.5, 0.0], [10.0, 0.0]])
    ended, began = tracker.update(collider.find_pairs([0, 0, 0], positions), ids)
    assert ended.shape == (0, 2) and began.tolist() == [[7, 1000]] and began.dtype == np.uint64
    # The bullet (1000) is first in the arrays now, still touching: no event.
    order = [1, 0, 2]
    ended, began = tracker.update(collider.find_pairs([0, 0, 0], positions[order]), ids[order])
    assert ended.size == 0 and began.size == 0
    positions[2] = [2.0, 1.0]  # 55 comes close to both; 7 and 1000 part
    positions[0] = [-5.0, 0.0]
    ended, began = tracker.update(collider.find_pairs([0, 0, 0], positions), ids)
    assert ended.tolist() == [[7, 1000]] and began.tolist() == [[55, 1000]]
    with pytest.raises(IndexError, match=r"pair 0: \[0, 3\] is not a pair of indices into the 3 ids"):
        tracker.update([[0, 3]], ids)
    with pytest.raises(TypeError, match="ids must be integers"):
        tracker.update([[0, 1]], [0.5, 1.5])
    ended, began = tracker.update(np.zeros((0, 2), np.uint32), ids)
    assert ended.tolist() == [[55, 1000]] and began.size == 0


def test_a_collider_busy_in_another_thread_raises_instead_of_deadlocking():
    import threading
    import time

    rng = np.random.default_rng(5)
    n = 200_000
    ids = np.zeros(n, dtype=np.uint32)
    positions = rng.uniform(0, 3000, size=(n, 2))
    collider = Collider([Circle(1.0)], backend="cpu")
    errors, done = [], threading.Event()

    started = threading.Event()

    def frames():
        try:
            while not done.is_set():
                started.set()
                collider.find_pairs(ids, positions)
        except RuntimeError as error:  # the other side may be the one refused
            errors.append(error)

    thread = threading.Thread(target=frames)
    thread.start()
    try:
        # Some call of ours overlaps one of the thread's frames, which release the GIL
        # and hold the collider for milliseconds each. Not a fixed count of calls: on a
        # busy machine a count can pass before the thread runs its first frame.
        assert started.wait(timeout=60)
        deadline = time.monotonic() + 60
        while not errors and time.monotonic() < deadline:
            try:
                collider.find_pairs(ids[:10], positions[:10])
            except RuntimeError as error:
                errors.append(error)
    finally:
        done.set()
        thread.join(timeout=60)
    assert not thread.is_alive()
    assert errors and "in use by another thread" in str(errors[0])


def test_empty_sequences_are_an_empty_frame_at_every_entry_point(backend):
    collider = Collider([Circle(1.0), Polygon([(-1, -1), (1, -1), (1, 1), (-1, 1)])], backend=backend)

    def check(array, dtype, shape):
        assert isinstance(array, np.ndarray) and array.dtype == dtype and array.shape == shape

    # Plain lists, tuples and numpy's float64 empty array, for every per-body argument.
    for empty in ([], (), np.array([])):
        check(collider.find_pairs(empty, empty), np.uint32, (0, 2))
        everything = dict(angles=empty, layers=empty, masks=empty)
        check(collider.find_pairs(empty, empty, velocities=empty, **everything), np.uint32, (0, 2))
        pairs, toi = collider.find_swept_pairs(empty, empty, empty, **everything)
        check(pairs, np.uint32, (0, 2))
        check(toi, np.float32, (0,))
        pairs, normals, depths, areas, parts = collider.find_contacts(empty, empty, **everything)
        check(pairs, np.uint32, (0, 2))
        check(parts, np.int64, (0, 2))
        check(normals, np.float32, (0, 2))
        check(depths, np.float32, (0,))
        check(areas, np.int64, (0,))
        queries = dict(rays=empty, ray_masks=empty, points=empty, point_masks=empty, boxes=empty, box_masks=empty)
        answers = collider.query(empty, empty, **everything, **queries)
        check(answers.ray_body, np.int64, (0,))
        check(answers.ray_t, np.float32, (0,))
        check(answers.ray_normal, np.float32, (0, 2))
        for offsets, bodies in [(answers.point_offsets, answers.point_bodies), (answers.box_offsets, answers.box_bodies)]:
            check(offsets, np.int64, (1,))
            assert offsets.tolist() == [0]
            check(bodies, np.uint32, (0,))
        # No bodies, some queries: every query meets nothing.
        answers = collider.query(empty, empty, rays=[[0, 0, 1, 0]], points=[[0, 0]], boxes=[[0, 0, 1, 1]])
        assert answers.ray_body.tolist() == [-1] and np.isnan(answers.ray_t).all()
        assert answers.point_offsets.tolist() == [0, 0] and answers.box_offsets.tolist() == [0, 0]
        # Some bodies, no queries.
        answers = collider.query([0], [[0, 0]], rays=empty, points=empty, boxes=empty)
        check(answers.ray_body, np.int64, (0,))
        check(answers.ray_normal, np.float32, (0, 2))
        assert answers.point_offsets.tolist() == [0] and answers.box_offsets.tolist() == [0]
        ended, began = gpu_collide.TouchTracker().update(empty, empty)
        check(ended, np.uint64, (0, 2))
        check(began, np.uint64, (0, 2))
    # An empty sequence is empty only where no body is expected.
    with pytest.raises(ValueError, match=r"positions must have shape \(2, 2\), not \(0,\)"):
        collider.find_pairs([0, 1], [])
    with pytest.raises(ValueError, match=r"velocities must have shape \(1, 2\), not \(0,\)"):
        collider.find_swept_pairs([0], [[0, 0]], [])
    with pytest.raises(ValueError, match=r"angles must have shape \(1,\), not \(0,\)"):
        collider.find_contacts([0], [[0, 0]], angles=[])


def test_empty_groups_are_an_empty_answer():
    collider = gpu_collide.SpriteCollider("cpu")
    assert gpu_collide.group_collide([], [], collider=collider) == {}
    assert gpu_collide.group_collide_many([], collider=collider) == []
    assert gpu_collide.group_collide_many([([], []), ((), [])], collider=collider) == [{}, {}]
