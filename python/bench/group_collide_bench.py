"""gpu_collide.group_collide against pygame.sprite.groupcollide(..., collide_mask).

N moving sprites, half in each group, half of them 32x32 and half 64x64, each with its
own mask made by pygame.mask.from_surface(image) in its constructor (as pygame code
usually does: many mask objects, few distinct pixel patterns). Every frame the sprites
move; pygame's answer is timed on the first frames and checked equal to gpu_collide's on
those same frames; gpu_collide's frames are timed after one warm-up frame (which uploads
the masks), and the median is reported.

    python python/bench/group_collide_bench.py --sizes 1000,5000,10000

prints a markdown table (and --json FILE writes the numbers).
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

import gpu_collide  # noqa: E402


def make_images():
    """Four sprite images with transparent corners: a ball and a ship in two sizes."""
    images = []
    for size in (32, 64):
        ball = pygame.Surface((size, size), pygame.SRCALPHA)
        pygame.draw.circle(ball, (255, 200, 0, 255), (size // 2, size // 2), size // 2 - 1)
        ship = pygame.Surface((size, size), pygame.SRCALPHA)
        pygame.draw.polygon(ship, (0, 200, 255, 255), [(size // 2, 0), (size - 1, size - 1), (size // 2, size * 3 // 4), (0, size - 1)])
        images += [ball, ship]
    return images


class Mover(pygame.sprite.Sprite):
    def __init__(self, image, x, y, vx, vy, *groups):
        super().__init__(*groups)
        self.image = image
        self.mask = pygame.mask.from_surface(image)
        self.rect = image.get_rect(topleft=(x, y))
        self.vx, self.vy = vx, vy

    def step(self, world):
        # Wrap around the world so that the density stays the same frame after frame.
        self.rect.x = (self.rect.x + self.vx) % world
        self.rect.y = (self.rect.y + self.vy) % world


def scene(n, seed):
    """Groups a and b of n // 2 sprites each, in a square world of ~1 sprite per 60x60."""
    rng = random.Random(seed)
    images = make_images()
    world = int(math.sqrt(n) * 60)
    a, b = pygame.sprite.Group(), pygame.sprite.Group()
    sprites = []
    for k in range(n):
        image = images[(k // 2) % 4]  # both groups get every image
        sprite = Mover(image, rng.randrange(world), rng.randrange(world), rng.randint(-4, 4), rng.randint(-4, 4), a if k % 2 == 0 else b)
        sprites.append(sprite)
    return a, b, sprites, world


def by_index(answer, sprites):
    """An answer with sprites replaced by their creation index, to compare answers
    about two copies of one scene."""
    index = {id(s): k for k, s in enumerate(sprites)}
    return [(index[id(a)], [index[id(b)] for b in hits]) for a, hits in answer.items()]


def step(sprites, world):
    for sprite in sprites:
        sprite.step(world)


def bench_size(n, backends, frames, pygame_frames, seed):
    row = {"sprites": n}
    answers = []  # pygame's answers on the first frames, to check against
    a, b, sprites, world = scene(n, seed)
    pygame_times = []
    for _ in range(pygame_frames):
        start = time.perf_counter()
        answer = pygame.sprite.groupcollide(a, b, False, False, pygame.sprite.collide_mask)
        pygame_times.append(time.perf_counter() - start)
        answers.append(by_index(answer, sprites))
        step(sprites, world)
    row["pygame_s"] = statistics.median(pygame_times)
    row["pairs"] = sum(len(hits) for _, hits in answers[0])
    for backend in backends:
        a, b, sprites, world = scene(n, seed)  # the same frames again
        collider = gpu_collide.SpriteCollider(backend)
        times = []
        for frame in range(max(frames, pygame_frames) + 1):
            start = time.perf_counter()
            answer = gpu_collide.group_collide(a, b, collider=collider)
            elapsed = time.perf_counter() - start
            if frame < pygame_frames and by_index(answer, sprites) != answers[frame]:
                sys.exit(f"{backend}: {n} sprites, frame {frame}: the answer differs from pygame's")
            if frame > 0:  # frame 0 uploads the masks
                times.append(elapsed)
            step(sprites, world)
        row[f"{backend}_ms"] = statistics.median(times) * 1e3
        row[f"{backend}_speedup"] = row["pygame_s"] / statistics.median(times)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,5000,10000", help="sprite counts, comma-separated")
    parser.add_argument("--backends", default="cpu,gpu", help="gpu_collide backends to time")
    parser.add_argument("--frames", type=int, default=20, help="gpu_collide frames timed per size")
    parser.add_argument("--pygame-frames", type=int, default=2, help="pygame frames timed (and checked) per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    if "gpu" in backends:
        try:
            print(f"gpu: {gpu_collide.gpu_adapter()}", file=sys.stderr)
        except RuntimeError as error:
            print(f"gpu backend skipped: {error}", file=sys.stderr)
            backends.remove("gpu")
    print(f"pygame {pygame.version.ver}, {os.cpu_count()} cpus", file=sys.stderr)
    rows = []
    header = "| sprites | pairs | pygame groupcollide | " + " | ".join(f"group_collide {b}" for b in backends) + " |"
    print(header)
    print("|" + "---:|" * (3 + len(backends)))
    for n in [int(s) for s in args.sizes.split(",")]:
        row = bench_size(n, backends, args.frames, args.pygame_frames, args.seed)
        rows.append(row)
        cells = [f"{row[f'{b}_ms']:.2f} ms ({row[f'{b}_speedup']:.0f}x)" for b in backends]
        print(f"| {n} | {row['pairs']} | {row['pygame_s'] * 1e3:.0f} ms | " + " | ".join(cells) + " |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
