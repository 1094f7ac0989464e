//! `SpriteCollider`: pygame's `groupcollide(a, b, False, False, collide_mask)` over the
//! library, with the sprites' masks kept as shapes from one frame to the next.
//!
//! pygame's `collide_mask(left, right)` asks `left.mask.overlap(right.mask, offset)` with
//! `offset = right.rect[:2] - left.rect[:2]`: whether a set pixel of one mask lies on a set
//! pixel of the other when each mask's pixel (0, 0) sits at its sprite's `rect` top-left.
//! A library bitmask body at whole coordinates (x, y) puts pixel (c, r) on the world cell
//! (x + c, y + r), and two bitmasks collide exactly when some world cell is set in both
//! (docs/scene-format.md, and `bitmask_bitmask` in the CPU narrow phase: a word-wide AND
//! of the rows both cover). So a sprite is a body at `rect[0], rect[1]` whose shape is its
//! mask, and the pairs are pygame's, with no edge effects: two masks whose set pixels only
//! share an edge share no cell, in pygame and here. The tests hold this to pygame itself.
//!
//! Masks are looked up by identity (one mask object shared by many sprites is read once
//! a frame) and by content (equal masks are one shape); a mask changed in place since the
//! last frame is seen, since its bits are compared each frame, so the cache never answers
//! for pixels that are no longer there. A mask larger than the library's bitmasks (8192
//! a side) is cut into tiles, a body each, and a pair found through several tiles is
//! listed once.
//!
//! Several pairs of groups go in one frame: each group is a slot, a layer bit of its
//! bodies, whose filter mask holds the slots it is paired with; a group paired with
//! itself gets a second slot, so that a sprite meets itself as it does in pygame.

use std::collections::HashMap;
use std::sync::Mutex;

use gpu_collide::{glam::Vec2, Body, Shape, ShapeLibrary};
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::bits::{self, MaskBits, RawMask};
use crate::{lock, Backend, Engine};
use gpu_collide::shapes::MAX_BITMASK_SIDE;

/// Largest distance of a sprite from the first one, so that every cell edge of every
/// mask (up to 8192 pixels further) is a whole number f32 holds exactly (2^24).
const MAX_SPREAD: i64 = (1 << 24) - 8192;

/// Most groups one call can collide: each takes a bit of the bodies' 32-bit layers.
const MAX_SLOTS: usize = 32;

/// Largest side of the library's bitmask shapes: larger masks (a level's terrain) are
/// cut into tiles of this side, a body each.
const TILE: u32 = MAX_BITMASK_SIDE;

/// One library shape of a mask, at `(dx, dy)` from the mask's top-left pixel.
#[derive(Clone, Copy)]
struct Tile {
    shape: u32,
    dx: u32,
    dy: u32,
}

/// A mask object seen before, kept alive so that its address names it alone.
struct KnownMask {
    _object: Py<PyAny>,
    raw: RawMask,
    /// Its look (an index into `MaskCache::looks`), or None for a mask with no set
    /// pixel (which overlaps nothing).
    shape: Option<u32>,
    /// The frame it was last checked in.
    seen: u64,
}

/// The shapes of the masks seen, by identity and by content.
#[derive(Default)]
struct MaskCache {
    by_object: HashMap<usize, KnownMask>,
    /// The look of each distinct mask seen, by its pixels.
    by_content: HashMap<MaskBits, u32>,
    /// Each look's tiles: one for a mask up to [`TILE`] a side.
    looks: Vec<Vec<Tile>>,
    /// The frame each look was last used in.
    look_seen: Vec<u64>,
    /// The library's shapes, in order.
    shapes: Vec<MaskBits>,
    /// Bumped whenever `shapes` changes, so the collider is rebuilt.
    generation: u64,
    frame: u64,
}

impl MaskCache {
    /// The shape of `mask`; `fresh` masks (just made by `from_surface`) are not kept by
    /// identity, as nothing will hand the same object again.
    fn shape_of(&mut self, mask: &Bound<'_, PyAny>, fresh: bool) -> PyResult<Option<u32>> {
        let key = mask.as_ptr() as usize;
        let frame = self.frame;
        if !fresh {
            if let Some(known) = self.by_object.get_mut(&key) {
                if known.seen == frame {
                    return Ok(known.shape);
                }
                let same = known.raw.refresh(mask)?;
                known.seen = frame;
                if same {
                    let shape = known.shape;
                    self.mark(shape);
                    return Ok(shape);
                }
                // Changed in place: refresh read its new pixels, to look up by content.
                let raw = std::mem::take(&mut known.raw);
                let shape = self.by_content_of(&raw)?;
                if let Some(known) = self.by_object.get_mut(&key) {
                    known.raw = raw;
                    known.shape = shape;
                }
                return Ok(shape);
            }
        }
        let raw = RawMask::read(mask)?;
        let shape = self.by_content_of(&raw)?;
        if !fresh {
            self.by_object.insert(
                key,
                KnownMask {
                    _object: mask.clone().unbind(),
                    raw,
                    shape,
                    seen: frame,
                },
            );
        }
        Ok(shape)
    }

    /// The look of a mask with these pixels, added if new.
    fn by_content_of(&mut self, raw: &RawMask) -> PyResult<Option<u32>> {
        let bits = raw.to_bits();
        if bits.is_empty() {
            return Ok(None);
        }
        let look = match self.by_content.get(&bits) {
            Some(&look) => look,
            None => {
                let tiles = bits
                    .tiles(TILE)
                    .into_iter()
                    .map(|(dx, dy, tile)| {
                        self.shapes.push(tile);
                        Tile {
                            shape: self.shapes.len() as u32 - 1,
                            dx,
                            dy,
                        }
                    })
                    .collect();
                let look = self.looks.len() as u32;
                self.looks.push(tiles);
                self.look_seen.push(self.frame);
                self.by_content.insert(bits, look);
                self.generation += 1;
                look
            }
        };
        self.mark(Some(look));
        Ok(Some(look))
    }

    fn mark(&mut self, look: Option<u32>) {
        if let Some(l) = look {
            self.look_seen[l as usize] = self.frame;
        }
    }

    /// After a frame's lookups: forget mask objects not seen for a while, and tell
    /// whether the library holds so many shapes this frame did not use (a game that
    /// makes new masks every frame) that it should be rebuilt from this frame's alone.
    fn tidy(&mut self) -> bool {
        let frame = self.frame;
        let seen = self.by_object.values().filter(|k| k.seen == frame).count();
        if self.by_object.len() > 2 * seen + 1024 {
            self.by_object.retain(|_, k| k.seen == frame);
        }
        let used = self.look_seen.iter().filter(|&&f| f == frame).count();
        self.looks.len() > 2 * used + 256
    }

    fn clear(&mut self) {
        let frame = self.frame;
        *self = MaskCache {
            generation: self.generation + 1,
            frame,
            ..MaskCache::default()
        };
    }
}

struct SpriteState {
    cache: MaskCache,
    /// The collider over `cache.shapes` as of `built`.
    engine: Option<Engine>,
    built: u64,
    bodies: Vec<Body>,
    /// For each body, the index of its sprite in its group, and its slot.
    owners: Vec<usize>,
    slot_of: Vec<u8>,
    /// `pygame.mask.from_surface`, looked up on first need.
    from_surface: Option<Py<PyAny>>,
}

/// pygame's `groupcollide(..., collide_mask)` on the library; keeps the masks it has seen
/// as uploaded shapes from call to call.
///
/// `SpriteCollider(backend="auto")`: `backend` is `"gpu"`, `"cpu"` or `"auto"` (the GPU
/// if a hardware adapter opens, else the CPU).
///
/// Threads: a SpriteCollider serves one call at a time. It may be made in one thread and
/// used in another, and the GIL is released while the backend works; but a call made
/// while another thread's call on the same SpriteCollider is running raises
/// `RuntimeError: this collider is in use by another thread` instead of waiting (the
/// running call finishes, the cache is unharmed). Give each thread its own, or hold a
/// `threading.Lock` around the calls on a shared one. The module's `group_collide` and
/// `group_collide_many` do the latter for their shared default collider, so they may be
/// called from any thread.
#[pyclass(module = "gpu_collide._native")]
pub struct SpriteCollider {
    state: Mutex<SpriteState>,
    backend: Backend,
}

/// A sprite's `rect[0]` and `rect[1]` and its mask, as `collide_mask` reads them.
struct SpriteView<'py> {
    x: i64,
    y: i64,
    mask: Bound<'py, PyAny>,
    fresh: bool,
}

impl SpriteState {
    fn read_sprite<'py>(&mut self, sprite: &Bound<'py, PyAny>) -> PyResult<SpriteView<'py>> {
        let py = sprite.py();
        let rect = sprite.getattr("rect")?;
        let coordinate = |k: usize| -> PyResult<i64> {
            rect.get_item(k)?.extract::<i64>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "sprite.rect[{k}] must be an integer (a pygame.Rect), not {}",
                    rect.get_item(k)
                        .map(|v| bits::type_name(&v))
                        .unwrap_or_default()
                ))
            })
        };
        let (x, y) = (coordinate(0)?, coordinate(1)?);
        // collide_mask: `sprite.mask` if it has one, else a mask made from its image.
        match sprite.getattr("mask") {
            Ok(mask) => Ok(SpriteView {
                x,
                y,
                mask,
                fresh: false,
            }),
            Err(e) if e.is_instance_of::<PyAttributeError>(py) => {
                let from_surface = match &self.from_surface {
                    Some(f) => f.bind(py).clone(),
                    None => {
                        let f = py.import("pygame.mask")?.getattr("from_surface")?;
                        self.from_surface = Some(f.clone().unbind());
                        f
                    }
                };
                let mask = from_surface.call1((sprite.getattr("image")?,))?;
                Ok(SpriteView {
                    x,
                    y,
                    mask,
                    fresh: true,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Turns the slots' sprites into bodies, slot after slot, skipping sprites whose
    /// masks have no set pixel. A body of slot `k` is in layer bit `k` and collides with
    /// the slots in `partners[k]`.
    fn gather(&mut self, slots: &[Vec<Bound<'_, PyAny>>], partners: &[u32]) -> PyResult<()> {
        self.bodies.clear();
        self.owners.clear();
        self.slot_of.clear();
        let mut origin: Option<(i64, i64)> = None;
        for (slot, sprites) in slots.iter().enumerate() {
            for (index, sprite) in sprites.iter().enumerate() {
                let view = self.read_sprite(sprite)?;
                let Some(look) = self.cache.shape_of(&view.mask, view.fresh)? else {
                    continue;
                };
                // Only differences of positions matter: measure from the first sprite,
                // so that large world coordinates stay within what f32 holds exactly.
                let (ox, oy) = *origin.get_or_insert((view.x, view.y));
                for tile in &self.cache.looks[look as usize] {
                    let dx = view.x - ox + tile.dx as i64;
                    let dy = view.y - oy + tile.dy as i64;
                    if dx.abs() > MAX_SPREAD || dy.abs() > MAX_SPREAD {
                        return Err(PyValueError::new_err(format!(
                            "sprites lie {} pixels apart, more than the {MAX_SPREAD} gpu_collide handles exactly",
                            dx.abs().max(dy.abs())
                        )));
                    }
                    self.bodies.push(
                        Body::new(tile.shape, Vec2::new(dx as f32, dy as f32))
                            .with_filter(1 << slot, partners[slot]),
                    );
                    self.owners.push(index);
                    self.slot_of.push(slot as u8);
                }
            }
        }
        Ok(())
    }

    /// The collider over the current shapes, rebuilt if they changed.
    fn engine(&mut self, backend: Backend) -> PyResult<&mut Engine> {
        if self.engine.is_none() || self.built != self.cache.generation {
            self.engine = None; // free the old one's buffers first
            let shapes = self
                .cache
                .shapes
                .iter()
                .map(|bits| {
                    bits.to_bitmask()
                        .map(Shape::Bitmask)
                        .map_err(PyValueError::new_err)
                })
                .collect::<PyResult<Vec<_>>>()?;
            let library = ShapeLibrary::new(&shapes).map_err(|e| crate::to_py(e.into()))?;
            self.engine = Some(Engine::new(backend, library)?);
            self.built = self.cache.generation;
        }
        self.engine
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("no collider"))
    }
}

#[pymethods]
impl SpriteCollider {
    #[new]
    #[pyo3(signature = (backend = "auto"))]
    fn new(backend: &str) -> PyResult<Self> {
        Ok(SpriteCollider {
            state: Mutex::new(SpriteState {
                cache: MaskCache::default(),
                engine: None,
                built: 0,
                bodies: Vec::new(),
                owners: Vec::new(),
                slot_of: Vec::new(),
                from_surface: None,
            }),
            backend: Backend::choose(backend)?,
        })
    }

    /// `"gpu"` or `"cpu"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend.name()
    }

    /// Distinct masks held (masks with equal pixels are one).
    #[getter]
    fn cached_shapes(&self) -> PyResult<usize> {
        Ok(lock(&self.state)?.cache.looks.len())
    }

    /// Forget every mask seen (they are read again on the next call).
    fn clear_cache(&self) -> PyResult<()> {
        lock(&self.state)?.cache.clear();
        Ok(())
    }

    /// What `pygame.sprite.groupcollide(group_a, group_b, False, False,
    /// pygame.sprite.collide_mask)` returns: each sprite of `group_a` that hits something,
    /// in `group_a`'s order, to the list of sprites of `group_b` it hits, in `group_b`'s order.
    fn group_collide<'py>(
        &self,
        py: Python<'py>,
        group_a: Bound<'py, PyAny>,
        group_b: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut dicts = self.collide_requests(py, vec![(group_a, group_b)])?;
        dicts
            .pop()
            .ok_or_else(|| PyRuntimeError::new_err("internal error: no result"))
    }

    /// `[group_collide(a, b) for a, b in pairs]`, in one frame on the backend: each group
    /// is read once however many pairs it is in, and every pair of groups is tested in
    /// the same pass (at most 32 distinct groups, a group paired with itself counting twice).
    fn group_collide_many<'py>(
        &self,
        py: Python<'py>,
        pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.collide_requests(py, pairs)
    }

    fn __repr__(&self) -> String {
        format!("SpriteCollider(backend={:?})", self.backend.name())
    }
}

impl SpriteCollider {
    fn collide_requests<'py>(
        &self,
        py: Python<'py>,
        requests: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        // Slots: each distinct group object once, plus a second copy of a group that a
        // request pairs with itself, so that a sprite can hit itself as in pygame.
        let mut slot_groups: Vec<Bound<'py, PyAny>> = Vec::new();
        let mut slot_keys: Vec<(usize, bool)> = Vec::new(); // (group address, is the copy)
        let mut slot = |group: &Bound<'py, PyAny>, copy: bool| -> PyResult<usize> {
            let key = (group.as_ptr() as usize, copy);
            if let Some(k) = slot_keys.iter().position(|&s| s == key) {
                return Ok(k);
            }
            if slot_keys.len() == MAX_SLOTS {
                return Err(PyValueError::new_err(format!(
                    "at most {MAX_SLOTS} distinct groups can be collided in one call (a group paired with itself counts twice)"
                )));
            }
            slot_keys.push(key);
            slot_groups.push(group.clone());
            Ok(slot_keys.len() - 1)
        };
        let mut request_slots = Vec::with_capacity(requests.len());
        for (x, y) in &requests {
            let sx = slot(x, false)?;
            let sy = slot(y, x.is(y))?;
            request_slots.push((sx, sy));
        }
        // pygame iterates each group as it stands when asked: once per call here.
        let slots: Vec<Vec<Bound<'py, PyAny>>> = slot_groups
            .iter()
            .map(|g| g.try_iter()?.collect::<PyResult<Vec<_>>>())
            .collect::<PyResult<_>>()?;
        // pygame reads no sprite of a request with an empty side: such requests take no
        // part, and their groups are read only if another request needs them.
        let live: Vec<bool> = request_slots
            .iter()
            .map(|&(sx, sy)| !slots[sx].is_empty() && !slots[sy].is_empty())
            .collect();
        let mut partners = vec![0u32; slots.len()];
        let mut needed = vec![false; slots.len()];
        for (&(sx, sy), _) in request_slots.iter().zip(&live).filter(|(_, &l)| l) {
            partners[sx] |= 1 << sy;
            partners[sy] |= 1 << sx;
            needed[sx] = true;
            needed[sy] = true;
        }
        let empty = Vec::new();
        let slots: Vec<Vec<Bound<'py, PyAny>>> = slots
            .into_iter()
            .zip(&needed)
            .map(|(s, &n)| if n { s } else { empty.clone() })
            .collect();
        let mut results: Vec<Vec<(usize, usize)>> = vec![Vec::new(); requests.len()];
        if live.iter().any(|&l| l) {
            let mut state = lock(&self.state)?;
            let state = &mut *state;
            state.cache.frame += 1;
            state.gather(&slots, &partners)?;
            if state.cache.tidy() {
                state.cache.clear();
                state.gather(&slots, &partners)?;
            }
            let bodies = std::mem::take(&mut state.bodies);
            let pairs = if bodies.is_empty() {
                Ok(Vec::new())
            } else {
                state.engine(self.backend)?.find_pairs(py, &bodies)
            };
            state.bodies = bodies;
            // Which requests a pair of slots answers, and which way round.
            let mut routes: HashMap<(u8, u8), Vec<(usize, bool)>> = HashMap::new();
            for (r, &(sx, sy)) in request_slots.iter().enumerate() {
                if live[r] {
                    routes
                        .entry((sx as u8, sy as u8))
                        .or_default()
                        .push((r, false));
                    routes
                        .entry((sy as u8, sx as u8))
                        .or_default()
                        .push((r, true));
                }
            }
            for [i, j] in pairs? {
                let (i, j) = (i as usize, j as usize);
                let (Some(&si), Some(&sj)) = (state.slot_of.get(i), state.slot_of.get(j)) else {
                    return Err(PyRuntimeError::new_err(format!(
                        "internal error: pair ({i}, {j}) of {} bodies",
                        state.slot_of.len()
                    )));
                };
                for &(r, flipped) in routes.get(&(si, sj)).map(|v| v.as_slice()).unwrap_or(&[]) {
                    let (x, y) = if flipped { (j, i) } else { (i, j) };
                    results[r].push((state.owners[x], state.owners[y]));
                }
            }
        }
        // Each dict as pygame builds it: keys in the first group's order, each list in
        // the second's.
        let mut dicts = Vec::with_capacity(requests.len());
        for (r, mut hits) in results.into_iter().enumerate() {
            let (sx, sy) = request_slots[r];
            // A mask cut into tiles may hit through several of them: once is enough.
            hits.sort_unstable();
            hits.dedup();
            let dict = PyDict::new(py);
            let mut k = 0;
            while k < hits.len() {
                let x = hits[k].0;
                let mut list = Vec::new();
                while k < hits.len() && hits[k].0 == x {
                    list.push(&slots[sy][hits[k].1]);
                    k += 1;
                }
                dict.set_item(&slots[sx][x], PyList::new(py, list)?)?;
            }
            dicts.push(dict);
        }
        Ok(dicts)
    }
}
