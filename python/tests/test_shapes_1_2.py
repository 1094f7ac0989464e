"""Capsules, concave polygons and compounds (scene format 1.2) through the Python package:
known answers on both backends, contacts naming their parts, and clear errors."""

import numpy as np
import pytest

from gpu_collide import Capsule, Circle, Collider, Compound, Concave, Polygon


def test_a_laser_a_particle_and_a_hangar(backend):
    shapes = [
        Concave([(0, 0), (12, 0), (12, 10), (8, 10), (8, 4), (4, 4), (4, 10), (0, 10)]),
        Capsule((0, -20), (0, 20)),  # a laser of no width
        Capsule((0, 0), (0, 0)),  # a particle
        Circle(1.0),
    ]
    collider = Collider(shapes, backend=backend)
    # The laser through the hangar's right arm; the particle in its gap (inside the
    # hull, outside the outline); a circle on its left arm.
    pairs = collider.find_pairs([0, 1, 2, 3], [[0, 0], [10, 0], [6, 7], [2, 7]])
    assert pairs.tolist() == [[0, 1], [0, 3]]


def test_a_compound_pair_is_one_pair_and_its_contacts_name_parts(backend):
    shapes = [
        Circle(1.0),
        Capsule((-4, 0), (4, 0), 0.25),
        Compound([(0, -4, 0, 0), (1, 0, 0, 0), (0, 4, 0, 0)]),
    ]
    collider = Collider(shapes, backend=backend)
    ids, positions = [2, 2], [[0, 0], [0, 0]]
    angles = np.array([0, np.pi / 2], np.float32)
    assert collider.find_pairs(ids, positions, angles=angles).tolist() == [[0, 1]]
    contacts = collider.find_contacts(ids, positions, angles=angles)
    assert contacts.pairs.tolist() == [[0, 1]]
    assert contacts.parts.tolist() == [[1, 1]]
    assert contacts.depths[0] == pytest.approx(4.5, abs=1e-4)


def test_convex_pairs_have_no_parts():
    collider = Collider([Circle(1.0), Capsule((0, 0), (3, 0), 0.5)], backend="cpu")
    contacts = collider.find_contacts([0, 1], [[0, 0], [1, 0]])
    assert contacts.parts.tolist() == [[-1, -1]]


@pytest.mark.parametrize(
    "shapes, message",
    [
        ([Concave([(0, 0), (4, 0), (0, 4), (4, 4)])], "shape 0: concave: edges 1 and 3 cross"),
        ([Capsule((0, 0), (1, 0), -1.0)], "shape 0: capsule: radius"),
        ([Circle(1.0), Compound([(1, 0, 0, 0)])], "shape 1: compound: part 0: shape 1 is a compound"),
        ([Polygon([(0, 0), (1, 0), (0, 1)]), Compound([])], "shape 1: compound: has 0 parts"),
    ],
)
def test_broken_shapes_are_refused_by_name(shapes, message):
    with pytest.raises(ValueError, match=message):
        Collider(shapes, backend="cpu")
