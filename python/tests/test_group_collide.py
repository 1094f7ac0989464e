"""group_collide against pygame.sprite.groupcollide(a, b, False, False, collide_mask).

The results are compared as ordered lists of (sprite, [sprites]) items: pygame's dict
is built in group_a's iteration order with each list in group_b's, and group_collide
promises the same order, not only the same sets.
"""

import random
import threading

import numpy as np
import pygame
import pytest

import gpu_collide


class Sprite(pygame.sprite.Sprite):
    def __init__(self, mask, x, y, groups=()):
        super().__init__(*groups)
        self.mask = mask
        self.rect = pygame.Rect(x, y, *mask.get_size())


class ImageSprite(pygame.sprite.Sprite):
    """A sprite with no mask: collide_mask makes one from its image."""

    def __init__(self, image, x, y):
        super().__init__()
        self.image = image
        self.rect = image.get_rect(topleft=(x, y))


def pygame_answer(a, b):
    return list(pygame.sprite.groupcollide(a, b, False, False, pygame.sprite.collide_mask).items())


def ours(a, b, collider):
    return list(gpu_collide.group_collide(a, b, collider=collider).items())


def random_mask(rng, width, height, density):
    mask = pygame.mask.Mask((width, height))
    for y in range(height):
        for x in range(width):
            if rng.random() < density:
                mask.set_at((x, y))
    return mask


def random_masks(rng):
    # Widths around pygame's 64-bit words and the library's 32-bit ones; sparse masks
    # make many boxes overlap without pixels doing so; one mask is empty.
    sizes = [(1, 1), (1, 9), (33, 5), (45, 17), (64, 3), (65, 2), (70, 11), (32, 32), (8, 40)]
    masks = [random_mask(rng, w, h, rng.choice([0.05, 0.3, 0.9])) for w, h in sizes]
    masks.append(pygame.mask.Mask((12, 12)))
    return masks


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_moving_sprites_agree_with_pygame_frame_after_frame(backend, seed):
    rng = random.Random(seed)
    masks = random_masks(rng)
    a, b = pygame.sprite.Group(), pygame.sprite.Group()
    sprites = []
    for k in range(120):
        # Negative and positive coordinates in a small area: many near misses.
        sprite = Sprite(rng.choice(masks), rng.randint(-60, 60), rng.randint(-60, 60), [a if k % 2 else b])
        sprites.append(sprite)
    collider = gpu_collide.SpriteCollider(backend)
    hits = 0
    for _frame in range(4):
        expected = pygame_answer(a, b)
        assert ours(a, b, collider) == expected
        assert ours(b, a, collider) == pygame_answer(b, a)
        hits += len(expected)
        for sprite in sprites:
            sprite.rect.move_ip(rng.randint(-3, 3), rng.randint(-3, 3))
    assert hits > 0  # the scene really collides
    # One shape per distinct non-empty mask in use (the empty mask is no shape).
    used = {(s.mask.get_size(), bytes(memoryview(s.mask))) for s in sprites if s.mask.count()}
    assert collider.cached_shapes == len(used)


def test_sprites_sharing_only_an_edge_or_a_corner_do_not_collide(backend):
    full = pygame.mask.Mask((33, 45), fill=True)
    collider = gpu_collide.SpriteCollider(backend)
    centre = Sprite(full, -10, -20)
    for dx, dy, collide in [
        (33, 0, False), (-33, 0, False), (0, 45, False), (0, -45, False),  # edges
        (33, 45, False), (-33, -45, False), (33, -45, False),  # corners
        (32, 0, True), (-32, 44, True), (32, 44, True), (0, 0, True),
    ]:
        other = Sprite(full, -10 + dx, -20 + dy)
        expected = pygame_answer([centre], [other])
        assert bool(expected) == collide
        assert ours([centre], [other], collider) == expected


def test_widths_across_word_edges_at_negative_offsets(backend):
    rng = random.Random(11)
    collider = gpu_collide.SpriteCollider(backend)
    for width in [1, 33, 45, 70]:
        # A single set pixel in the last column against a column of pixels: only the
        # exact offset collides.
        right = pygame.mask.Mask((width, 3))
        right.set_at((width - 1, 1))
        post = pygame.mask.Mask((1, 3), fill=True)
        left = Sprite(right, -100, -7)
        for dx in range(width - 3, width + 2):
            other = Sprite(post, -100 + dx, -7 + rng.randint(-2, 2))
            expected = pygame_answer([left], [other])
            assert ours([left], [other], collider) == expected, (width, dx)


def test_sprites_without_a_mask_use_their_image(backend):
    rng = random.Random(5)
    images = []
    for size in [(10, 10), (33, 7), (70, 5)]:
        image = pygame.Surface(size, pygame.SRCALPHA)
        for _ in range(size[0] * size[1] // 3):
            image.set_at((rng.randrange(size[0]), rng.randrange(size[1])), (255, 0, 0, rng.choice([0, 100, 200])))
        images.append(image)
    a = [ImageSprite(rng.choice(images), rng.randint(-30, 30), rng.randint(-30, 30)) for _ in range(40)]
    b = [ImageSprite(rng.choice(images), rng.randint(-30, 30), rng.randint(-30, 30)) for _ in range(40)]
    collider = gpu_collide.SpriteCollider(backend)
    expected = pygame_answer(a, b)
    assert expected
    assert ours(a, b, collider) == expected
    # Equal images give equal masks, and equal masks are one shape.
    assert collider.cached_shapes <= len(images)


def test_a_mask_changed_in_place_is_seen():
    mask = pygame.mask.Mask((70, 8))
    mask.set_at((0, 0))
    # Sprites sharing the mask object, and zero-sized masks that never collide.
    a = [Sprite(mask, 0, 0), Sprite(mask, 100, 0), Sprite(pygame.mask.Mask((0, 5)), 0, 0)]
    b = [Sprite(pygame.mask.Mask((1, 1), fill=True), 69, 7), Sprite(pygame.mask.Mask((5, 0)), 0, 0)]
    collider = gpu_collide.SpriteCollider("cpu")
    assert ours(a, b, collider) == pygame_answer(a, b) == []
    mask.set_at((69, 7))
    assert ours(a, b, collider) == pygame_answer(a, b) == [(a[0], [b[0]])]
    b[0].rect.x += 100
    assert ours(a, b, collider) == pygame_answer(a, b) == [(a[1], [b[0]])]
    mask.clear()
    assert ours(a, b, collider) == pygame_answer(a, b) == []
    mask.set_at((69, 7))  # back to pixels seen before: the shape is found by content
    assert ours(a, b, collider) == pygame_answer(a, b) == [(a[1], [b[0]])]


def test_one_sprite_in_both_groups_hits_itself_if_its_mask_has_a_pixel():
    full = Sprite(pygame.mask.Mask((4, 4), fill=True), 3, 3)
    empty = Sprite(pygame.mask.Mask((4, 4)), 3, 3)
    group = pygame.sprite.Group(full, empty)
    collider = gpu_collide.SpriteCollider("cpu")
    assert ours(group, group, collider) == pygame_answer(group, group) == [(full, [full])]


def test_empty_groups_and_far_apart_sprites():
    collider = gpu_collide.SpriteCollider("cpu")
    one = Sprite(pygame.mask.Mask((4, 4), fill=True), 0, 0)
    assert gpu_collide.group_collide([], [one], collider=collider) == {}
    assert gpu_collide.group_collide([one], [], collider=collider) == {}
    # Large world coordinates: only their differences matter, and those stay exact.
    far = [Sprite(one.mask, 5_000_000 + k, -3_000_000) for k in (0, 4, 3)]
    assert ours(far[:1], far[1:], collider) == pygame_answer(far[:1], far[1:]) == [(far[0], [far[2]])]
    with pytest.raises(ValueError, match="pixels apart"):
        gpu_collide.group_collide([one], [Sprite(one.mask, 20_000_000, 0)], collider=collider)


def test_many_masks_made_each_frame_keep_the_cache_bounded():
    rng = random.Random(9)
    collider = gpu_collide.SpriteCollider("cpu")
    for _frame in range(6):
        # New mask objects with new pixels every frame, as a game animating by
        # from_surface would make.
        a = [Sprite(random_mask(rng, 6, 6, 0.5), rng.randint(0, 40), rng.randint(0, 40)) for _ in range(150)]
        b = [Sprite(random_mask(rng, 6, 6, 0.5), rng.randint(0, 40), rng.randint(0, 40)) for _ in range(150)]
        assert ours(a, b, collider) == pygame_answer(a, b)
    assert collider.cached_shapes <= 2 * 300 + 256


def test_sprite_errors_are_python_exceptions():
    collider = gpu_collide.SpriteCollider("cpu")
    good = Sprite(pygame.mask.Mask((4, 4), fill=True), 0, 0)

    class NoRect:
        mask = good.mask

    with pytest.raises(AttributeError):
        gpu_collide.group_collide([NoRect()], [good], collider=collider)

    class NotAMask(pygame.sprite.Sprite):
        rect = pygame.Rect(0, 0, 4, 4)
        mask = np.ones((4, 4), bool)

    with pytest.raises(TypeError, match="pygame.mask.Mask"):
        gpu_collide.group_collide([NotAMask()], [good], collider=collider)
    with pytest.raises(ValueError, match="backend"):
        gpu_collide.SpriteCollider("tpu")


def test_default_collider_follows_the_environment(monkeypatch):
    monkeypatch.setenv("GPU_COLLIDE_BACKEND", "cpu")
    monkeypatch.setattr(gpu_collide, "_default_sprite_collider", None)
    assert gpu_collide.default_sprite_collider().backend == "cpu"
    one = Sprite(pygame.mask.Mask((4, 4), fill=True), 0, 0)
    two = Sprite(one.mask, 3, 3)
    assert gpu_collide.group_collide([one], [two]) == {one: [two]}


def test_many_pairs_of_groups_in_one_pass_equal_pygame_pair_by_pair(backend):
    rng = random.Random(21)
    masks = random_masks(rng)
    players, enemies, bullets, walls = (pygame.sprite.Group() for _ in range(4))
    groups = [players, enemies, bullets, walls]
    for k in range(160):
        Sprite(rng.choice(masks), rng.randint(-50, 50), rng.randint(-50, 50), [groups[k % 4]])
    # A sprite in two groups, as pygame games often have (all_sprites and enemies).
    both = Sprite(masks[7], 0, 0, [players, enemies])
    requests = [
        (players, enemies), (enemies, players), (bullets, enemies), (bullets, walls),
        (players, players), (walls, walls), (enemies, pygame.sprite.Group()),
    ]
    collider = gpu_collide.SpriteCollider(backend)
    got = gpu_collide.group_collide_many(requests, collider=collider)
    assert len(got) == len(requests)
    for (a, b), answer in zip(requests, got):
        assert list(answer.items()) == pygame_answer(a, b)
    assert both in got[0] and both in got[0][both] and got[4][both][0] is not None
    assert sum(map(len, got)) > 20


def test_more_than_32_groups_are_refused():
    groups = [pygame.sprite.Group(Sprite(pygame.mask.Mask((2, 2), fill=True), 0, 0)) for _ in range(17)]
    pairs = [(groups[k], groups[k + 1]) for k in range(16)]  # 17 groups: fine
    assert len(gpu_collide.group_collide_many(pairs, collider=gpu_collide.SpriteCollider("cpu"))) == 16
    pairs += [(g, g) for g in groups]  # 17 copies more: 34 slots
    with pytest.raises(ValueError, match="at most 32 distinct groups"):
        gpu_collide.group_collide_many(pairs, collider=gpu_collide.SpriteCollider("cpu"))


def test_masks_larger_than_the_library_takes_are_cut_into_tiles(backend):
    # The library's bitmasks are at most 8192 pixels a side; a level's terrain may be
    # larger. Pixels on both sides of the cut at 8192, and sprites straddling it (which
    # hit two tiles and must be listed once).
    wide = pygame.mask.Mask((9000, 6))
    for x in [0, 8191, 8192, 8999]:
        wide.set_at((x, 2))
    wide.draw(pygame.mask.Mask((40, 2), fill=True), (8172, 4))  # solid across the cut
    tall = pygame.mask.Mask((3, 8300), fill=True)
    dot = pygame.mask.Mask((2, 2), fill=True)
    terrain = [Sprite(wide, -100, 50), Sprite(tall, 300, -8000)]
    rng = random.Random(13)
    sprites = [Sprite(dot, -100 + x + rng.randint(-2, 1), 50 + y) for x in [0, 8191, 8192, 8999, 8180, 8200] for y in (1, 2, 4, 5)]
    sprites += [Sprite(dot, 300 + rng.randint(-2, 3), -8000 + y) for y in (-2, -1, 0, 8190, 8191, 8192, 8299, 8300)]
    straddling = [Sprite(dot, -100 + 8191, 50 + 4), Sprite(dot, 300, -8000 + 8191)]
    sprites += straddling
    collider = gpu_collide.SpriteCollider(backend)
    expected = pygame_answer(terrain, sprites)
    assert len(expected) == 2 and len(expected[0][1]) > 10
    assert all(s in dict(expected)[t] for s, t in zip(straddling, terrain))
    assert ours(terrain, sprites, collider) == expected
    assert ours(sprites, terrain, collider) == pygame_answer(sprites, terrain)


def test_module_functions_from_many_threads_at_once_agree_with_one_thread(backend, monkeypatch):
    # group_collide and group_collide_many share a hidden default collider; threads that
    # call them at the same time (each call releases the GIL) must each get the answer,
    # never "in use by another thread". The default collider is made by a racing thread.
    monkeypatch.setenv("GPU_COLLIDE_BACKEND", backend)
    monkeypatch.setattr(gpu_collide, "_default_sprite_collider", None)
    rng = random.Random(31)
    masks = random_masks(rng)
    a, b, c = pygame.sprite.Group(), pygame.sprite.Group(), pygame.sprite.Group()
    for k in range(900):
        Sprite(rng.choice(masks), rng.randint(-150, 150), rng.randint(-150, 150), [(a, b, c)[k % 3]])
    expected = pygame_answer(a, b)
    expected_many = [pygame_answer(a, b), pygame_answer(c, a), pygame_answer(b, b)]
    assert expected and all(expected_many)
    mask_a, mask_b = masks[3], masks[4]
    expected_area = mask_a.overlap_area(mask_b, (10, 3))
    assert expected_area > 0
    threads, calls = 6, 12
    barrier = threading.Barrier(threads)
    failures, answered = [], []

    def work(k):
        try:
            barrier.wait(timeout=60)
            for i in range(calls):
                if (i + k) % 4 == 0:
                    got = [list(d.items()) for d in gpu_collide.group_collide_many([(a, b), (c, a), (b, b)])]
                    ok = got == expected_many
                else:
                    ok = list(gpu_collide.group_collide(a, b).items()) == expected
                ok = ok and gpu_collide.overlap_area(mask_a, mask_b, (10, 3)) == expected_area
                if not ok:
                    failures.append(f"thread {k}, call {i}: a different answer")
                answered.append(k)
        except Exception as error:  # noqa: BLE001 - any failure in a thread is the test's
            failures.append(f"thread {k}: {error!r}")

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert not any(worker.is_alive() for worker in workers)
    assert failures == []
    assert len(answered) == threads * calls
    assert gpu_collide.default_sprite_collider().backend == backend
