"""Type stubs of gpu_collide._native, the Rust extension (see gpu_collide/__init__.py)."""

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

class Polygon:
    """A convex polygon (3 to 256 vertices, either winding), in the body's frame."""

    def __init__(self, vertices: Union[npt.ArrayLike, Sequence[Tuple[float, float]]]) -> None:
        """``vertices``: an (N, 2) array of reals or a sequence of (x, y) pairs.
        Convexity is checked when a Collider is built from it."""
    @property
    def vertices(self) -> List[Tuple[float, float]]: ...

class Circle:
    """A circle of ``radius`` centred on the body's position."""

    def __init__(self, radius: float) -> None: ...
    @property
    def radius(self) -> float: ...

class Capsule:
    """Every point within ``radius`` of the segment from ``a`` to ``b``, in the body's
    frame: with radius 0 a segment (a laser), with ``a == b`` too a point."""

    def __init__(
        self, a: Tuple[float, float], b: Tuple[float, float], radius: float = 0.0
    ) -> None: ...
    @property
    def a(self) -> Tuple[float, float]: ...
    @property
    def b(self) -> Tuple[float, float]: ...
    @property
    def radius(self) -> float: ...

class Concave:
    """A simple polygon, convex or not, cut into convex pieces when a Collider is built."""

    def __init__(self, vertices: Union[npt.ArrayLike, Sequence[Tuple[float, float]]]) -> None:
        """``vertices``: the outline, an (N, 2) array of reals or a sequence of (x, y)
        pairs, in either winding. Its rules are checked when a Collider is built."""
    @property
    def vertices(self) -> List[Tuple[float, float]]: ...

class Compound:
    """The union of other shapes of the same Collider: ``parts`` are
    ``(shape, x, y, angle)``, ``shape`` the index of a shape in the Collider's list
    (not a compound, not a bitmask), placed in the compound's frame."""

    def __init__(self, parts: Sequence[Tuple[int, float, float, float]]) -> None: ...
    @property
    def parts(self) -> List[Tuple[int, float, float, float]]: ...

class Bitmask:
    """A 1-bit mask of ``height`` rows of ``width`` pixels (each 1 to 8192).

    Pixel (x, y) of a body at (px, py) is the unit square at (px + x, py + y).
    """

    def __init__(self, source: Any) -> None:
        """From a 2D numpy array of bool or uint8, shape (height, width), ``array[y, x]``
        being pixel (x, y), non-zero meaning set; or from a ``pygame.mask.Mask``.

        Raises TypeError for another dtype or type, ValueError for another shape."""
    @staticmethod
    def from_pygame(mask: Any) -> Bitmask:
        """From a ``pygame.mask.Mask``, read through its buffer."""
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    def count(self) -> int:
        """Number of set pixels."""
    def to_array(self) -> npt.NDArray[np.bool_]:
        """The pixels as a (height, width) bool array."""

class Collider:
    """The native collider; use ``gpu_collide.Collider``, which adds ``find_pairs``,
    ``find_swept_pairs``, ``find_contacts`` and ``query`` over these methods.
    One call at a time: see ``gpu_collide.Collider`` on threads."""

    def __init__(self, shapes: Sequence[Union[Polygon, Circle, Bitmask]], backend: str = "auto") -> None:
        """``backend``: "gpu", "cpu", or "auto" (the GPU if a hardware adapter opens,
        else the CPU). ValueError names the first bad shape."""
    @property
    def backend(self) -> str:
        """``"gpu"`` or ``"cpu"``: the backend chosen."""
    def describe(self) -> str:
        """The backend and adapter, for logs."""
    def set_max_pairs(self, max: int) -> None:
        """Refuse (RuntimeError) frames whose bodies' boxes overlap in more than ``max``
        pairs, bounding memory (default 2**26)."""
    def __len__(self) -> int:
        """Number of shapes."""
    def _find_pairs(
        self,
        shapes: npt.NDArray[np.uint32],
        positions: npt.NDArray[np.float32],
        angles: Optional[npt.NDArray[np.float32]] = None,
        layers: Optional[npt.NDArray[np.uint32]] = None,
        masks: Optional[npt.NDArray[np.uint32]] = None,
        velocities: Optional[npt.NDArray[np.float32]] = None,
    ) -> npt.NDArray[np.uint32]:
        """Flat pairs [i0, j0, i1, j1, ...]; swept when any velocity is non-zero."""
    def _find_swept_pairs(
        self,
        shapes: npt.NDArray[np.uint32],
        positions: npt.NDArray[np.float32],
        velocities: npt.NDArray[np.float32],
        angles: Optional[npt.NDArray[np.float32]] = None,
        layers: Optional[npt.NDArray[np.uint32]] = None,
        masks: Optional[npt.NDArray[np.uint32]] = None,
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.float32]]:
        """Flat pairs and their times of impact."""
    def _find_contacts(
        self,
        shapes: npt.NDArray[np.uint32],
        positions: npt.NDArray[np.float32],
        angles: Optional[npt.NDArray[np.float32]] = None,
        layers: Optional[npt.NDArray[np.uint32]] = None,
        masks: Optional[npt.NDArray[np.uint32]] = None,
    ) -> Tuple[
        npt.NDArray[np.uint32],
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
    ]:
        """Flat pairs, flat normals and depths (NaN for a pair with a bitmask), areas
        (-1 for a pair without one), flat parts (-1 for a pair of convex bodies)."""
    def _query(
        self,
        shapes: npt.NDArray[np.uint32],
        positions: npt.NDArray[np.float32],
        angles: Optional[npt.NDArray[np.float32]] = None,
        layers: Optional[npt.NDArray[np.uint32]] = None,
        masks: Optional[npt.NDArray[np.uint32]] = None,
        rays: Optional[npt.NDArray[np.float32]] = None,
        ray_masks: Optional[npt.NDArray[np.uint32]] = None,
        points: Optional[npt.NDArray[np.float32]] = None,
        point_masks: Optional[npt.NDArray[np.uint32]] = None,
        boxes: Optional[npt.NDArray[np.float32]] = None,
        box_masks: Optional[npt.NDArray[np.uint32]] = None,
    ) -> Tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.int64],
        npt.NDArray[np.uint32],
        npt.NDArray[np.int64],
        npt.NDArray[np.uint32],
    ]:
        """Ray bodies (-1: none), t (NaN: none), flat normals (NaN: none or null), then
        point and box answers as CSR offsets and bodies."""

class SpriteCollider:
    """pygame's ``groupcollide(..., collide_mask)`` on the library, caching the masks it
    has seen as shapes from call to call.

    Threads: one call at a time. A call made while another thread's call on the same
    SpriteCollider is running raises ``RuntimeError`` ("in use by another thread")
    instead of waiting; give each thread its own, or take turns with a
    ``threading.Lock`` (as ``gpu_collide.group_collide`` does for its default one)."""

    def __init__(self, backend: str = "auto") -> None: ...
    @property
    def backend(self) -> str: ...
    @property
    def cached_shapes(self) -> int:
        """Distinct mask shapes held (equal masks are one shape)."""
    def clear_cache(self) -> None:
        """Forget every mask seen."""
    def group_collide(self, group_a: Iterable[Any], group_b: Iterable[Any]) -> Dict[Any, List[Any]]:
        """What ``pygame.sprite.groupcollide(group_a, group_b, False, False,
        pygame.sprite.collide_mask)`` returns."""
    def group_collide_many(self, pairs: Sequence[Tuple[Iterable[Any], Iterable[Any]]]) -> List[Dict[Any, List[Any]]]:
        """``[self.group_collide(a, b) for a, b in pairs]`` in one pass (at most 32
        distinct groups, a group paired with itself counting twice)."""

class TouchTracker:
    """The native touch tracker; use ``gpu_collide.TouchTracker``, which adds ``update``."""

    def __init__(self) -> None: ...
    def _update(
        self, pairs: npt.NDArray[np.uint32], ids: npt.NDArray[np.uint64]
    ) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]: ...

def gpu_adapter() -> str:
    """The GPU adapter the gpu backend uses, described; RuntimeError if none opens."""

def overlap_area(mask_a: Any, mask_b: Any, offset: Tuple[int, int]) -> int:
    """``mask_a.overlap_area(mask_b, offset)`` for pygame masks or Bitmasks."""
