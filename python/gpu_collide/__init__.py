"""Exact collision pairs of thousands of 2D bodies, on the GPU or on every CPU core.

gpu_collide puts the gpu-collide Rust library in the hands of numpy and pygame users:

* ``Collider(shapes, backend="auto")`` over ``Polygon``, ``Circle``, ``Capsule`` (a
  segment or point with radius 0), ``Concave``, ``Compound`` and ``Bitmask`` shapes; ``collider.find_pairs(shape_ids, positions, ...)`` takes numpy arrays for all
  bodies at once and returns an (M, 2) uint32 array of colliding index pairs ``i < j``;
  with ``velocities`` it answers for the whole frame (swept). ``find_swept_pairs`` adds
  the times of impact, ``find_contacts`` the depth and normal (or, with a bitmask, the
  shared area) of each pair, and ``query`` answers rays, points and boxes; all take and
  give numpy arrays (see their docstrings).
* ``group_collide(group_a, group_b)``: what ``pygame.sprite.groupcollide(group_a,
  group_b, False, False, pygame.sprite.collide_mask)`` returns, computed in one pass.
* ``overlap_area(mask_a, mask_b, offset)``: what ``mask_a.overlap_area(mask_b, offset)``
  returns.

Backends: ``"gpu"`` runs WGSL compute shaders through wgpu on any adapter (a software
one such as lavapipe works, slowly); ``"cpu"`` runs the same stages on all cores;
``"auto"`` takes the GPU when a hardware adapter opens and the CPU otherwise (a
software adapter runs the same work on the same cores as the cpu backend, only
slower). ``gpu_adapter()`` names the adapter the gpu backend would use.

Every per-body and per-query argument also takes an empty sequence (``[]``) for an
empty frame, answered with empty arrays of the usual dtypes and shapes.

Errors are Python exceptions with the library's messages: ``TypeError`` for a wrong
type or dtype, ``ValueError`` for a wrong shape or a refused value (a non-convex
polygon, a rotated bitmask), ``IndexError`` for a shape id out of range,
``RuntimeError`` for a missing adapter, a GPU failure or a collider already in use.
Both backends answer every question (pairs, swept pairs, contacts, queries).

Threads: the module-level functions (``group_collide``, ``group_collide_many``,
``overlap_area``) may be called from any number of threads at once; calls that share
the hidden default collider take turns. Shapes (``Polygon``, ``Circle``, ``Capsule``,
``Concave``, ``Compound``, ``Bitmask``) never change and may be shared freely. A ``Collider`` or ``SpriteCollider`` of your
own may be handed from thread to thread, but serves one call at a time: a call made
while another thread's call on the same collider is running raises ``RuntimeError``
("in use by another thread") instead of waiting, and the collider stays usable. Give
each thread its own, or guard a shared one with a ``threading.Lock``. Calls release
the GIL while the backend works, so threads with colliders of their own run at the
same time. A ``TouchTracker``'s calls run whole, one after another, but each compares
a frame with the one before: share one only between threads that feed it frames in
order.

The GPU device opens on first use (a ``Collider`` or ``SpriteCollider`` with backend
``"gpu"`` or ``"auto"``, or ``gpu_adapter()``) and is shared by every collider. Where
``XDG_RUNTIME_DIR`` is unset or empty, it names an empty private directory while the
device opens, so that Mesa's Vulkan layer does not make libwayland print ``error:
XDG_RUNTIME_DIR is invalid or not set``; then it is unset again. A value of the
user's is left alone.
"""

from __future__ import annotations

import math
import numbers
import os
import threading
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import (
    Bitmask,
    Capsule,
    Circle,
    Compound,
    Concave,
    Polygon,
    SpriteCollider,
    gpu_adapter,
)

__all__ = [
    "Bitmask",
    "Capsule",
    "Circle",
    "Compound",
    "Concave",
    "Collider",
    "Contacts",
    "Polygon",
    "QueryAnswers",
    "SpriteCollider",
    "SweptPairs",
    "TouchTracker",
    "gpu_adapter",
    "group_collide",
    "group_collide_many",
    "overlap_area",
]

Shape = Union[Polygon, Circle, Capsule, Concave, Compound, Bitmask]


def _integers(values: Any, name: str, n: int) -> np.ndarray:
    """A 1D integer array of n values, as given (range checks are the caller's)."""
    array = np.asarray(values)
    # An empty list is float64 to numpy; with no values there is nothing of a wrong type.
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(f"{name} must be integers, not {array.dtype}")
    if array.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), not {array.shape}")
    return array


def _bits32(values: Any, name: str, n: int, what: str = "body", field: str = "") -> np.ndarray:
    """Layer or mask bits: integers in 0 .. 2**32 - 1, as uint32; a bad one is named as
    ``{what} {index}: {field}`` (field: ``name`` without its plural s by default)."""
    array = _integers(values, name, n)
    if n and (array.min() < 0 or array.max() > 0xFFFFFFFF):
        bad = int(np.flatnonzero((array < 0) | (array > 0xFFFFFFFF))[0])
        raise ValueError(f"{what} {bad}: {field or name[:-1]}: {array[bad]} is not a 32-bit unsigned value")
    return np.ascontiguousarray(array, dtype=np.uint32)


def _reals(values: Any, name: str, shape: Tuple[int, ...]) -> np.ndarray:
    """A float32 array of this shape from any real (not bool) dtype; an empty sequence
    stands for an array of this shape with no element (``[]`` for (0, 2))."""
    array = np.asarray(values)
    if array.dtype.kind not in "fiu" and array.size:
        raise TypeError(f"{name} must be floats or integers, not {array.dtype}")
    if array.shape == (0,) and 0 in shape:
        array = array.reshape(shape)
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, not {array.shape}")
    # A value beyond float32 becomes inf, which the library refuses naming the body.
    with np.errstate(over="ignore"):
        return np.ascontiguousarray(array, dtype=np.float32)


def _query_rows(values: Any, name: str, width: int) -> np.ndarray:
    """Query rows: a (K, width) float32 array from any real dtype (an empty sequence is
    no query)."""
    array = np.asarray(values)
    if array.size == 0 and array.ndim < 2:
        array = array.reshape(0, width)
    if array.ndim != 2 or array.shape[1] != width:
        raise ValueError(f"{name} must have shape (K, {width}), not {array.shape}")
    return _reals(array, name, array.shape)


class SweptPairs(NamedTuple):
    """What :meth:`Collider.find_swept_pairs` returns."""

    pairs: np.ndarray
    """(M, 2) uint32: the bodies ``[i, j]``, ``i < j``, that meet during the frame, sorted."""
    toi: np.ndarray
    """(M,) float32: each pair's time of impact, the first ``t`` in [0, 1] at which they
    meet (0 when they already touch at the start)."""


class Contacts(NamedTuple):
    """What :meth:`Collider.find_contacts` returns, one row per colliding pair.

    A pair of polygons and circles has a ``normal`` and a ``depth`` and an ``area`` of
    -1; a pair with a bitmask has an ``area`` and NaN for ``normal`` and ``depth``:
    ``np.isnan(depths)`` (or ``areas >= 0``) tells which rows are which.
    """

    pairs: np.ndarray
    """(M, 2) uint32: the pairs of :meth:`Collider.find_pairs` (velocities ignored), in
    the same order."""
    normals: np.ndarray
    """(M, 2) float32: unit direction from body ``i`` towards body ``j`` in which ``j``
    moves ``depth`` to stop overlapping ``i`` (NaN rows for pairs with a bitmask)."""
    depths: np.ndarray
    """(M,) float32: the length of that shortest separating move, 0 or more (NaN for
    pairs with a bitmask)."""
    areas: np.ndarray
    """(M,) int64: for a pair with a bitmask, the cells set in both bitmasks (what
    ``pygame.mask.Mask.overlap_area`` counts) or the bitmask's set cells the other shape
    meets; -1 for a pair of polygons and circles."""
    parts: np.ndarray
    """(M, 2) int64: for a pair with a ``Concave`` or ``Compound`` body, which part of
    each the row is about (a pair has a row per pair of touching parts; a compound's
    parts are numbered in its order, a concave part counting as its convex pieces);
    -1, -1 for a pair of convex bodies, whose one row is the pair's."""


class QueryAnswers(NamedTuple):
    """What :meth:`Collider.query` returns: rays as arrays, points and boxes as
    compressed rows (CSR).

    The bodies containing point ``k`` are
    ``point_bodies[point_offsets[k]:point_offsets[k + 1]]``, ascending; likewise for
    boxes. ``np.diff(point_offsets)`` counts them per point, and
    ``np.split(point_bodies, point_offsets[1:-1])`` gives one array per point.
    """

    ray_body: np.ndarray
    """(R,) int64: the body each ray meets first (the lower index on a tie), -1 if none."""
    ray_t: np.ndarray
    """(R,) float32: where along the ray, in [0, 1] (NaN if no body)."""
    ray_normal: np.ndarray
    """(R, 2) float32: the shape's outward unit normal there; NaN rows when the ray hits
    nothing, or starts in or on the body (``t == 0``: no side was crossed)."""
    point_offsets: np.ndarray
    """(P + 1,) int64: point ``k``'s bodies are ``point_bodies[offsets[k]:offsets[k+1]]``."""
    point_bodies: np.ndarray
    """uint32: the bodies containing each point (boundary included), point after point."""
    box_offsets: np.ndarray
    """(B + 1,) int64: box ``k``'s bodies are ``box_bodies[offsets[k]:offsets[k+1]]``."""
    box_bodies: np.ndarray
    """uint32: the bodies whose shape meets each box (exactly, not their bounds)."""


class Collider(_native.Collider):
    """Finds the colliding pairs of bodies over a fixed list of shapes.

    ``Collider(shapes, backend="auto")``: ``shapes`` is a sequence of ``Polygon``,
    ``Circle``, ``Capsule``, ``Concave``, ``Compound`` (whose parts index this same
    sequence) and ``Bitmask``, checked and uploaded once (a bad shape raises
    ``ValueError`` naming it, e.g. ``shape 3: polygon: is not convex (vertex 2)``).
    ``backend`` is ``"gpu"``, ``"cpu"`` or ``"auto"`` (the GPU if a hardware adapter
    opens, else the CPU); ``collider.backend`` tells which was taken.

    Call :meth:`find_pairs` every frame with the bodies where they are now (and, for
    fast movers, ``velocities``). :meth:`find_swept_pairs`, :meth:`find_contacts` and
    :meth:`query` answer on both backends.

    Threads: a collider serves one call at a time. It may be made in one thread and used
    in another, and the GIL is released while the backend works, so other threads run
    meanwhile; but a call made while another thread's call on the same collider is
    running raises ``RuntimeError: this collider is in use by another thread`` instead
    of waiting (the collider is unharmed and the running call finishes). Give each
    thread its own collider (they share the one GPU device), or hold a
    ``threading.Lock`` around the calls on a shared one.
    """

    def _bodies(
        self, shape_ids: Any, positions: Any, angles: Any, layers: Any, masks: Any
    ) -> Tuple[int, Tuple[Any, ...]]:
        """The body arrays checked and converted to the types ``_native`` takes."""
        ids = np.asarray(shape_ids)
        if ids.ndim != 1:
            raise ValueError(f"shape_ids must be 1D (N,), not of shape {ids.shape}")
        n = ids.shape[0]
        ids = _integers(ids, "shape_ids", n)
        if n and (ids.min() < 0 or ids.max() > 0xFFFFFFFF):
            bad = int(np.flatnonzero((ids < 0) | (ids > 0xFFFFFFFF))[0])
            raise IndexError(
                f"body {bad}: shape: {ids[bad]} is not a shape index (the library has {len(self)} shapes)"
            )
        return n, (
            np.ascontiguousarray(ids, dtype=np.uint32),
            _reals(positions, "positions", (n, 2)),
            None if angles is None else _reals(angles, "angles", (n,)),
            None if layers is None else _bits32(layers, "layers", n),
            None if masks is None else _bits32(masks, "masks", n),
        )

    def find_pairs(
        self,
        shape_ids: Any,
        positions: Any,
        angles: Any = None,
        layers: Any = None,
        masks: Any = None,
        velocities: Any = None,
    ) -> np.ndarray:
        """The colliding pairs of N bodies, as an (M, 2) uint32 array.

        Args:
            shape_ids: (N,) integers, each body's index into the collider's shapes.
            positions: (N, 2) reals, each body's position (converted to float32, the
                precision the library computes in). A bitmask body must sit on whole
                numbers; its pixel (c, r) covers the unit square at (x + c, y + r).
            angles: optional (N,) reals, counter-clockwise rotation in radians (0 for
                bitmask bodies, which cannot rotate).
            layers: optional (N,) integers in 0 .. 2**32 - 1: the groups a body is in
                (default: all).
            masks: optional (N,) integers: the groups a body collides with (default:
                all). Bodies i and j are tested only if ``layers[i] & masks[j]`` and
                ``layers[j] & masks[i]`` are both non-zero.
            velocities: optional (N, 2) reals, how far each body slides during the
                frame (bitmask bodies cannot move). When any is non-zero the answer is
                the swept one: the pairs that meet at some time of the frame, as
                :meth:`find_swept_pairs` gives them (a bullet passing through a wall
                between two frames is caught).

        Returns:
            Every pair of bodies whose shapes touch or overlap (closed sets) and whose
            filters agree, once, as rows ``[i, j]`` with ``i < j``, sorted ascending.

        Raises:
            TypeError: an array of a non-numeric dtype (or non-integers for ids, layers
                or masks).
            ValueError: an array of the wrong shape, a non-finite number, a rotated
                or off-grid bitmask body, a moving bitmask body.
            IndexError: a shape id out of range.
            RuntimeError: the GPU failed, or the bodies' boxes overlap in more pairs
                than ``set_max_pairs`` allows.
        """
        n, bodies = self._bodies(shape_ids, positions, angles, layers, masks)
        v = None if velocities is None else _reals(velocities, "velocities", (n, 2))
        return self._find_pairs(*bodies, v).reshape(-1, 2)

    def find_swept_pairs(
        self,
        shape_ids: Any,
        positions: Any,
        velocities: Any,
        angles: Any = None,
        layers: Any = None,
        masks: Any = None,
    ) -> SweptPairs:
        """The pairs that meet while each body slides by its velocity, with the time.

        Over the frame, time ``t`` runs from 0 to 1 and body ``i`` sits at
        ``positions[i] + t * velocities[i]`` with its angle unchanged. Arguments are
        those of :meth:`find_pairs`, ``velocities`` being (N, 2) reals (zero rows for
        bodies that stay put; bitmask bodies must).

        Returns:
            ``SweptPairs(pairs, toi)``: ``pairs`` (M, 2) uint32 as :meth:`find_pairs`
            gives them with these velocities, and ``toi`` (M,) float32, each pair's first
            time of contact in [0, 1] (0 if they touch at the start). Nothing moving,
            the pairs of :meth:`find_pairs`, each at 0.

        Raises:
            As :meth:`find_pairs`.
        """
        n, bodies = self._bodies(shape_ids, positions, angles, layers, masks)
        ids, pos, *rest = bodies
        flat, toi = self._find_swept_pairs(ids, pos, _reals(velocities, "velocities", (n, 2)), *rest)
        return SweptPairs(flat.reshape(-1, 2), toi)

    def find_contacts(
        self,
        shape_ids: Any,
        positions: Any,
        angles: Any = None,
        layers: Any = None,
        masks: Any = None,
    ) -> Contacts:
        """How each colliding pair overlaps (arguments as :meth:`find_pairs`).

        Returns:
            ``Contacts(pairs, normals, depths, areas, parts)``, one row per pair of
            :meth:`find_pairs` (per pair of touching parts for concave and compound
            bodies), in its order: for polygons and circles the shortest
            move of body ``j`` (``depths[k] * normals[k]``, normal from ``i`` towards
            ``j``) that parts them, ``areas[k] == -1``; for a pair with a bitmask the
            cells they share in ``areas[k]`` (two bitmasks: pygame's
            ``Mask.overlap_area``), NaN normal and depth. See :class:`Contacts`.

        Raises:
            As :meth:`find_pairs`.
        """
        _, bodies = self._bodies(shape_ids, positions, angles, layers, masks)
        pairs, normals, depths, areas, parts = self._find_contacts(*bodies)
        return Contacts(
            pairs.reshape(-1, 2), normals.reshape(-1, 2), depths, areas, parts.reshape(-1, 2)
        )

    def query(
        self,
        shape_ids: Any,
        positions: Any,
        angles: Any = None,
        layers: Any = None,
        masks: Any = None,
        *,
        rays: Any = None,
        ray_masks: Any = None,
        points: Any = None,
        point_masks: Any = None,
        boxes: Any = None,
        box_masks: Any = None,
    ) -> QueryAnswers:
        """Ray, point and box queries against the bodies (as :meth:`find_pairs` takes
        them), answered together.

        Args:
            rays: optional (R, 4) reals, rows ``x, y, dx, dy``: the segment from
                ``(x, y)`` to ``(x + dx, y + dy)`` (not of zero length).
            points: optional (P, 2) reals, rows ``x, y``.
            boxes: optional (B, 4) reals, rows ``min_x, min_y, max_x, max_y`` (min not
                above max; equal corners make a segment or a point).
            ray_masks, point_masks, box_masks: optional (R,), (P,), (B,) integers in
                0 .. 2**32 - 1: a query sees only bodies whose layer shares a bit with
                its mask (default: every body).

        Returns:
            :class:`QueryAnswers`: for each ray the first body it meets
            (``ray_body``, -1 for none), where (``ray_t``, NaN for none) and the
            outward normal there (``ray_normal``, NaN when none, or when the ray starts
            in the body); for points and boxes the bodies they touch, boundaries
            included, as CSR offsets and bodies. Queries see the bodies at ``t = 0``.

        Raises:
            ValueError: a query breaking a rule, named by the library as ``ray 3: dx,
                dy: zero length: ...``, ``box 0: min, max: min is greater than max on
                x (2 > 1)`` or ``point 2: x: inf is not a finite 32-bit number``; or
                arrays of the wrong shape.
            Otherwise as :meth:`find_pairs`.
        """
        _, bodies = self._bodies(shape_ids, positions, angles, layers, masks)
        batch = []
        for kind, values, query_masks, width in (
            ("ray", rays, ray_masks, 4),
            ("point", points, point_masks, 2),
            ("box", boxes, box_masks, 4),
        ):
            plural = "boxes" if kind == "box" else kind + "s"
            rows = _query_rows([] if values is None else values, plural, width)
            k = rows.shape[0]
            if query_masks is None:
                batch += [rows, None]
            else:
                batch += [rows, _bits32(query_masks, f"{kind}_masks", k, what=kind, field="mask")]
        ray_body, ray_t, ray_normal, p_off, p_bodies, b_off, b_bodies = self._query(*bodies, *batch)
        return QueryAnswers(ray_body, ray_t, ray_normal.reshape(-1, 2), p_off, p_bodies, b_off, b_bodies)


class TouchTracker(_native.TouchTracker):
    """Turns each frame's pairs into "began touching" and "stopped touching" events,
    keyed by the caller's own ids, so that removing a body from the arrays (which shifts
    the indices after it) does not read as a change.
    """

    def update(self, pairs: Any, ids: Any = None) -> Tuple[np.ndarray, np.ndarray]:
        """Feed this frame's pairs; get ``(ended, began)`` since the last frame.

        Args:
            pairs: (M, 2) body indices, as ``Collider.find_pairs`` returns them.
            ids: optional (N,) non-negative integers, each body's id (default: its
                index, which is only right while bodies keep their places). The id
                2**64 - 1 means "no id": such a body is known by its index.

        Returns:
            Two (K, 2) uint64 arrays of id pairs, lower id first, sorted: the pairs that
            touched last frame and do not now, and those that touch now and did not.

        Raises:
            IndexError: a pair names a body past the end of ``ids``.
        """
        array = np.asarray(pairs)
        if array.size and array.dtype.kind not in "iu":
            raise TypeError(f"pairs must be integers, not {array.dtype}")
        if array.ndim != 2 or array.shape[1] != 2:
            if array.size == 0:
                array = array.reshape(0, 2)
            else:
                raise ValueError(f"pairs must have shape (M, 2), not {array.shape}")
        if array.size and (array.min() < 0 or array.max() > 0xFFFFFFFF):
            raise IndexError("pairs must be body indices in 0 .. 2**32 - 1")
        if ids is None:
            n = int(array.max()) + 1 if array.size else 0
            id_array = np.arange(n, dtype=np.uint64)
        else:
            id_array = np.asarray(ids)
            if id_array.ndim != 1:
                raise ValueError(f"ids must be 1D (N,), not of shape {id_array.shape}")
            if id_array.size and id_array.dtype.kind not in "iu":
                raise TypeError(f"ids must be integers, not {id_array.dtype}")
            if id_array.size and id_array.dtype.kind == "i" and id_array.min() < 0:
                raise ValueError("ids must not be negative")
        ended, began = self._update(
            np.ascontiguousarray(array, dtype=np.uint32), np.ascontiguousarray(id_array, dtype=np.uint64)
        )
        return ended.reshape(-1, 2), began.reshape(-1, 2)


_default_sprite_collider: Optional[SpriteCollider] = None

# Calls on the shared default collider take turns behind this lock: a collider serves
# one call at a time and refuses a second rather than wait. A lock, not a collider per
# thread (threading.local), because one call already uses the whole machine (the cpu
# backend runs on every core, the gpu backend has one device queue), so running two at
# once gains little, while each thread's collider would read and upload every mask
# again and keep its own copies for as long as the thread lives. An uncontended lock
# costs well under a microsecond, against a call's milliseconds; a waiting thread
# releases the GIL, so the call it waits for (which needs the GIL back to finish)
# finishes. Reentrant, so that Python code a call runs (a sprite's ``rect`` property)
# calling ``group_collide`` again on the same thread gets the collider's "in use"
# error instead of hanging.
_default_lock = threading.RLock()


def default_sprite_collider() -> SpriteCollider:
    """The SpriteCollider ``group_collide`` uses when given none: made on first use
    with the backend named by the environment variable ``GPU_COLLIDE_BACKEND``
    (``auto``, ``gpu`` or ``cpu``; ``auto`` when unset).

    It is shared: :func:`group_collide` and :func:`group_collide_many` take turns on it
    from any number of threads, but calling its methods directly from several threads
    at once raises ``RuntimeError`` (see :class:`SpriteCollider`)."""
    global _default_sprite_collider
    with _default_lock:
        if _default_sprite_collider is None:
            _default_sprite_collider = SpriteCollider(os.environ.get("GPU_COLLIDE_BACKEND", "auto"))
        return _default_sprite_collider


def group_collide(
    group_a: Iterable[Any], group_b: Iterable[Any], *, collider: Optional[SpriteCollider] = None
) -> Dict[Any, List[Any]]:
    """``pygame.sprite.groupcollide(group_a, group_b, False, False, pygame.sprite.collide_mask)``.

    Returns a dict from each sprite of ``group_a`` that hits at least one sprite of
    ``group_b`` to the list of those sprites, keys in ``group_a``'s iteration order and
    each list in ``group_b``'s, as pygame builds it. As ``collide_mask`` does, a sprite's
    mask is ``sprite.mask`` if it has one, else ``pygame.mask.from_surface(sprite.image)``,
    placed at ``sprite.rect``'s top-left; two sprites collide when a set pixel of one lies
    on a set pixel of the other (masks whose pixels only share an edge do not).

    The groups can be ``pygame.sprite.Group`` objects or any iterables of sprites.
    ``rect[0]`` and ``rect[1]`` must be integers, as a ``pygame.Rect``'s are (a float
    rect raises ``TypeError``: pygame would truncate the difference of two sprites'
    coordinates, which no per-sprite position reproduces). Masks of any size work;
    sprites more than about 16.7 million pixels apart raise ``ValueError``.
    Masks are cached between calls (by identity, checked against their pixels every
    call, so a mask changed in place is seen); pass ``collider`` to keep a cache and a
    backend of your own, else :func:`default_sprite_collider` is used.

    Safe to call from any number of threads at once: calls on the default collider take
    turns. A ``collider`` passed in must not be in use by another thread meanwhile
    (that raises ``RuntimeError``, see :class:`SpriteCollider`).
    """
    if collider is not None:
        return collider.group_collide(group_a, group_b)
    with _default_lock:
        return default_sprite_collider().group_collide(group_a, group_b)


def group_collide_many(
    pairs: Iterable[Tuple[Iterable[Any], Iterable[Any]]], *, collider: Optional[SpriteCollider] = None
) -> List[Dict[Any, List[Any]]]:
    """``[group_collide(a, b) for a, b in pairs]``, in one pass on the backend.

    Each group is read once however many pairs name it, and all pairs are tested in the
    same frame, which costs less than one call per pair when groups repeat (players
    against enemies, enemies against bullets, ...). At most 32 distinct groups (a group
    paired with itself counts twice). Each dict is exactly what
    ``pygame.sprite.groupcollide(a, b, False, False, pygame.sprite.collide_mask)`` returns.
    Threads: as :func:`group_collide`.
    """
    if collider is not None:
        return collider.group_collide_many(list(pairs))
    requests = list(pairs)
    with _default_lock:
        return default_sprite_collider().group_collide_many(requests)


# Further than any mask reaches (sides are below 2**32), and within the native i64: a
# coordinate beyond it gives the same 0 when clamped to it.
_FAR = 1 << 62


def _coordinate(value: Any) -> int:
    """An offset coordinate as pygame reads one, truncated toward zero as ``int()`` does;
    a NaN or an infinity is "far away" (see :func:`overlap_area`)."""
    if not isinstance(value, numbers.Real):
        raise TypeError("offset must be two numbers")
    if not isinstance(value, numbers.Integral):
        try:
            if not math.isfinite(value):
                return _FAR
        except OverflowError:  # a finite number beyond float's range (a Fraction)
            pass
    return max(-_FAR, min(_FAR, int(value)))


def _offset(offset: Any) -> Tuple[int, int]:
    try:
        x, y = offset
    except (TypeError, ValueError):
        raise TypeError("offset must be two numbers") from None
    return _coordinate(x), _coordinate(y)


def overlap_area(mask_a: Any, mask_b: Any, offset: Sequence[float]) -> int:
    """``mask_a.overlap_area(mask_b, offset)``, as pygame computes it.

    The number of set pixels of ``mask_a`` that lie on set pixels of ``mask_b`` when
    ``mask_b``'s top-left pixel sits on ``mask_a``'s pixel ``offset`` (offsets may be
    negative; non-integers are truncated toward zero, as pygame does). Either mask may
    be a ``pygame.mask.Mask`` or a :class:`Bitmask`. Counted exactly on the CPU, a
    64-pixel word at a time. Safe to call from any thread.

    A NaN or infinite coordinate gives 0, as pygame 2.6 answers on x86-64 (its C
    conversion turns them into -2**31, far off the mask; on other CPUs pygame's answer
    for NaN follows that CPU's conversion). Where pygame differs: it keeps only the low
    32 bits of an integer coordinate (2**32 acts as 0) and raises ``TypeError`` for one
    beyond 64 bits or for a ``numpy.float32``; here every integer means what it says
    (anything that far gives 0) and any real number is taken.
    """
    return _native.overlap_area(mask_a, mask_b, _offset(offset))
