"""overlap_area against pygame's Mask.overlap_area, on seeded random masks.

Widths 1, 33, 45, 64, 65 and 70 cross the 64-bit words both pygame and gpu_collide pack
masks into; offsets run over every value from fully left/above to fully right/below, so
an off-by-one at any word or mask edge changes some count.
"""

import fractions
import platform
import random

import numpy as np
import pygame
import pytest

import gpu_collide

WIDTHS = [1, 33, 45, 64, 65, 70]


def random_mask(rng: random.Random, width: int, height: int, density: float) -> pygame.mask.Mask:
    mask = pygame.mask.Mask((width, height))
    for y in range(height):
        for x in range(width):
            if rng.random() < density:
                mask.set_at((x, y))
    return mask


@pytest.mark.parametrize("width_a", WIDTHS)
def test_every_offset_agrees_with_pygame(width_a):
    rng = random.Random(1000 + width_a)
    a = random_mask(rng, width_a, 5, 0.6)
    for width_b in WIDTHS:
        b = random_mask(rng, width_b, 4, 0.6)
        for dx in range(-width_b - 1, width_a + 2):
            for dy in range(-5, 7):
                expected = a.overlap_area(b, (dx, dy))
                assert gpu_collide.overlap_area(a, b, (dx, dy)) == expected, (width_a, width_b, dx, dy)


def test_full_masks_sharing_only_an_edge_or_a_corner_do_not_overlap():
    a = pygame.mask.Mask((33, 7), fill=True)
    for offset in [(33, 0), (-33, 0), (0, 7), (0, -7), (33, 7), (-33, -7)]:
        assert a.overlap_area(a, offset) == 0
        assert gpu_collide.overlap_area(a, a, offset) == 0
    assert gpu_collide.overlap_area(a, a, (32, 6)) == 1 == a.overlap_area(a, (32, 6))


def test_bitmasks_and_pygame_masks_mix():
    rng = random.Random(7)
    pm = random_mask(rng, 70, 9, 0.5)
    array = np.zeros((6, 45), dtype=bool)
    array[::2, ::3] = True
    bm = gpu_collide.Bitmask(array)
    other = pygame.mask.Mask((45, 6))
    for y, x in zip(*array.nonzero()):
        other.set_at((int(x), int(y)))
    for offset in [(0, 0), (-3, 2), (30, -1), (69, 8)]:
        assert gpu_collide.overlap_area(pm, bm, offset) == pm.overlap_area(other, offset)
        assert gpu_collide.overlap_area(bm, pm, offset) == other.overlap_area(pm, offset)


def test_offsets_are_truncated_like_pygame():
    a = pygame.mask.Mask((5, 5), fill=True)
    for offset in [(1.7, 1.2), (-1.5, 0), [2, 3], pygame.math.Vector2(1, 1), (np.int64(2), 0)]:
        assert gpu_collide.overlap_area(a, a, offset) == a.overlap_area(a, offset)


def test_nan_and_infinite_offsets_overlap_nothing_as_in_pygame():
    a = pygame.mask.Mask((5, 5), fill=True)
    b = gpu_collide.Bitmask(np.ones((5, 5), dtype=bool))
    nan, inf = float("nan"), float("inf")
    offsets = [(nan, 0), (0, nan), (nan, nan), (inf, 0), (-inf, 0), (0, -inf), (np.float64(nan), 1), (1e300, 0)]
    for offset in offsets:
        # pygame 2.6 on x86-64 answers 0 (the docstring says why, and where it may not).
        if platform.machine().lower() in ("x86_64", "amd64"):
            assert a.overlap_area(a, offset) == 0, offset
        assert gpu_collide.overlap_area(a, a, offset) == 0, offset
        assert gpu_collide.overlap_area(b, a, offset) == 0, offset
    assert gpu_collide.overlap_area(a, a, (np.float32(nan), 0)) == 0
    # Finite offsets next to them still count.
    assert gpu_collide.overlap_area(a, a, (1.5, -1e-300)) == 20 == a.overlap_area(a, (1.5, -1e-300))


def test_offsets_beyond_32_bits_mean_what_they_say():
    a = pygame.mask.Mask((5, 5), fill=True)
    huge = fractions.Fraction(10**400, 3)
    for offset in [(2**32, 0), (0, -(2**32) + 1), (2**31, 0), (2**70, 0), (0, -(2**80)), (2**62 + 1, 0), (huge, 0), (0, -huge)]:
        assert gpu_collide.overlap_area(a, a, offset) == 0, offset
    # pygame 2.6.1 keeps the low 32 bits: 2**32 + 1 acts as 1 there.
    assert a.overlap_area(a, (2**32 + 1, 0)) == 20


def test_empty_and_zero_sized_masks_overlap_nothing():
    full = pygame.mask.Mask((5, 5), fill=True)
    for empty in [pygame.mask.Mask((0, 5)), pygame.mask.Mask((5, 0)), pygame.mask.Mask((5, 5))]:
        assert gpu_collide.overlap_area(full, empty, (0, 0)) == 0 == full.overlap_area(empty, (0, 0))
        assert gpu_collide.overlap_area(empty, full, (0, 0)) == 0


def test_bad_arguments_raise_type_errors():
    a = pygame.mask.Mask((5, 5), fill=True)
    for offset in [(1,), "ab", None, ("1", 2)]:
        with pytest.raises(TypeError, match="offset must be two numbers"):
            gpu_collide.overlap_area(a, a, offset)
    with pytest.raises(TypeError, match="pygame.mask.Mask or a gpu_collide.Bitmask"):
        gpu_collide.overlap_area(a, 3, (0, 0))
