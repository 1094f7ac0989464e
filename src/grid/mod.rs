//! The hierarchical grid's layout and cell functions, shared by the GPU broad phase
//! (`shaders/broad.wgsl`, which has a WGSL function of the same name for each) and its
//! CPU twin ([`crate::cpu::broad`]).
//!
//! Level `l` has square cells of side `base_cell · 2^l`; a body sits in one cell, on the
//! finest level whose cells are at least as large as its box. The last level,
//! [`TOP_LEVEL`], is one cell covering the whole plane: it takes the bodies too large for
//! any other level (a polygon 10^20 across among bullets), which would otherwise reach
//! further than the grid's search assumes and make their search cover billions of cells.

pub mod cell_size;

use glam::{IVec2, Vec2};

use crate::input::library::ShapeLibrary;
#[cfg(feature = "internals")]
use crate::layout::packed::Aabb;
use crate::layout::packed::{BodyInfo, GridInfo, MAX_LEVELS, REACH_BUDGET};

/// The level whose one cell holds every body too large for the others.
pub const TOP_LEVEL: u32 = MAX_LEVELS - 1;

/// How the grid is laid out for a scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridParams {
    /// Side of the finest cells; level `l` has cells of `base_cell · 2^l`.
    pub base_cell: f32,
    /// Buckets of the hash table: a power of two, at least as many as the bodies, so that
    /// few cells share a bucket while the table stays small enough to cache well.
    pub bucket_count: u32,
    /// The layer bits of the bodies that wait to be found ([`waiter_layers`]): a body
    /// whose layer lies within them never searches the grid for partners, except up at
    /// levels whose bodies cannot reach down to it. 0: every body searches.
    pub waiter_layers: u32,
    /// Where each cell's bucket lies in the table ([`cell_bucket`]).
    pub layout: TableLayout,
}

impl GridParams {
    /// Parameters for these bodies from their sizes alone, where their positions are not
    /// known; the colliders measure instead ([`crate::grid::cell_size::choose_grid`]).
    pub fn for_bodies(library: &ShapeLibrary, infos: &[BodyInfo]) -> Self {
        // Cells twice the median body: most bodies then sit on level 0 (a body exactly
        // as large as a cell would be pushed up a level by the rounding margin), and a
        // coarse body reaching level 0 covers a quarter of the cells it would otherwise.
        GridParams {
            base_cell: 2.0 * median_extent(library, infos),
            bucket_count: bucket_count(infos.len()),
            waiter_layers: waiter_layers(infos),
            layout: TableLayout::SCATTERED,
        }
    }
}

/// How cells are laid out in the hash table ([`cell_bucket`]): a cell's bucket is
/// `x + y · row_stride + level · level_step`, modulo the table's size. Around a
/// crowded scene, `row_stride` is the width of the rectangle its bodies sit in, so the
/// rows of a level follow each other, and `level_step` puts each level's rows where no
/// other level's are; elsewhere both are large odd numbers that scatter the rows.
///
/// Why: a body reads every entry of the buckets of the cells it looks at, so the
/// bodies of other cells that share a bucket cost it a read each, for nothing. With
/// rows scattered, a crowded 10k scene whose occupied cells (4600 of them) fill a
/// third of the table's 16384 buckets shares about as many buckets as a random hash
/// would, whatever the scene: counted on the crowded mixed scenes of the bench's
/// generators, 23% of the entries read on one seed (36k of 154k), 16% on another, 0.7%
/// and none on two others, as the rows happened to fall. Laid out row after row, the
/// cells of a rectangle that fits in the table each have a bucket of their own, on any
/// seed. The formula is the scattered one's, with two numbers of the host's instead of
/// constants: in the `broad` kernel's loop every operation is paid on every turn
/// (llvmpipe runs both sides of a branch), and a layout that subtracted an origin and
/// computed a band per level cost the bitmask scenes' broad stage 6%. Any layout
/// gives the same pairs: a reader checks each entry's cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLayout {
    /// Buckets from a cell to the one above it.
    pub row_stride: u32,
    /// Buckets from a level's cell to the same cell of the next level.
    pub level_step: u32,
}

impl TableLayout {
    /// Rows and levels scattered over the table, for grids whose bodies' positions are
    /// not known or whose rectangle does not fit in the table (a sparse scene, where
    /// most cells read are empty anyway).
    pub const SCATTERED: TableLayout = TableLayout {
        row_stride: 0x9e37_79b1,
        level_step: 0xc2b2_ae3d,
    };

    /// Level steps tried by [`TableLayout::around`] before it gives up.
    const LEVEL_STEPS_TRIED: u32 = 1024;

    /// The layout for a scene whose body centres lie within `min ..= max` (or most of
    /// them: a body outside the rectangle still has a bucket, shared perhaps), with
    /// level-0 cells of `base_cell`, bodies on levels below `levels` (or most of them),
    /// and a table of `bucket_count` buckets (a power of two).
    pub fn around(
        min: Vec2,
        max: Vec2,
        base_cell: f32,
        levels: u32,
        bucket_count: u32,
    ) -> TableLayout {
        let params = GridParams {
            base_cell,
            bucket_count,
            waiter_layers: 0,
            layout: TableLayout::SCATTERED,
        };
        let (first, last) = (cell_at(&params, min, 0), cell_at(&params, max, 0));
        let table = bucket_count as i64;
        // A level's row spans at most ((columns - 1) >> l) + 2 cells: one more than
        // level 0's columns is enough for every level.
        let row_stride = last.x as i64 - first.x as i64 + 2;
        if row_stride < 2 || last.y < first.y || row_stride > table {
            return TableLayout::SCATTERED;
        }
        // Each level's rows, as a run of buckets from its first cell's (before the level
        // step): they cannot overlap within a level once they fit in the table.
        let runs: Vec<(i64, i64)> = (0..levels.min(TOP_LEVEL))
            .map(|level| {
                let (x, y) = ((first.x >> level) as i64, (first.y >> level) as i64);
                let rows = (last.y >> level) as i64 - y + 1;
                (x + y * row_stride, rows * row_stride)
            })
            .collect();
        if runs.iter().map(|r| r.1).sum::<i64>() > table {
            return TableLayout::SCATTERED;
        }
        // Level steps spread over the table, until one separates the levels' runs.
        (1..=Self::LEVEL_STEPS_TRIED)
            .map(|k| (k.wrapping_mul(0x9e37_79b1) & (bucket_count - 1)) as i64)
            .find(|&step| {
                // Level l's run starts l steps on; two runs are apart when each ends
                // before the other starts, going round the table.
                let at = |level: usize| (runs[level].0 + level as i64 * step).rem_euclid(table);
                (0..runs.len()).all(|a| {
                    (a + 1..runs.len()).all(|b| {
                        (at(b) - at(a)).rem_euclid(table) >= runs[a].1
                            && (at(a) - at(b)).rem_euclid(table) >= runs[b].1
                    })
                })
            })
            .map_or(TableLayout::SCATTERED, |step| TableLayout {
                row_stride: row_stride as u32,
                level_step: step as u32,
            })
    }
}

/// Buckets of the hash table for `bodies` bodies: see [`GridParams::bucket_count`].
pub fn bucket_count(bodies: usize) -> u32 {
    (bodies as u64).next_power_of_two().clamp(1024, 1 << 31) as u32
}

/// Buckets of the query grid's table for `bodies` bodies: twice the pairs' table.
///
/// Why: the query grid's cells are larger than the pairs' (`choose_query_grid`), and a
/// ray reads every cell along it on every level, so its levels together take more rows of
/// buckets than a pair search's: on the bullet-hell scene at 100k, 330 x 330 cells of
/// level 0 and the coarser levels' rows need 164k buckets, past a table of 131k, which
/// was then scattered (TableLayout::around). Scattered, half the entries a ray read
/// belonged to other cells sharing a bucket. With twice the buckets the table is laid
/// out, each cell its own bucket: 10^4 rays took 15.5-16.4 ms on lavapipe against
/// 21.4-28.8 (BENCHMARKS.md, "Queries: their own grid, and rays that hand their rows
/// over"). The cost is the buckets buffer, 8 bytes a bucket, sized
/// for this table by both backends.
pub fn query_bucket_count(bodies: usize) -> u32 {
    bucket_count(bodies.saturating_mul(2))
}

/// The layer bits whose bodies wait to be found rather than search, chosen from the
/// bodies' filters; 0 when waiting would not pay.
///
/// Why: in a bullet-hell scene 10^5 bullets accept only the player or the enemies, and
/// no bullet ever pairs with another bullet. When every body both searches its own level
/// and its share of the other levels, each bullet reads the cells around it wherever a
/// ship shares its level, which swept frames make common: a bullet's box grows with its
/// motion and lands on the ships' levels (measured on the swept bullet-hell at 100k: 267k
/// cells and 279k entries read a frame, against 23k and 5k without motion). A pair needs
/// only one of its two bodies to find it, so bodies of layers that never pair among
/// themselves can wait while the few others (the seekers) search for them.
///
/// The set `W` is valid when no waiting body (layer bits all in `W`) accepts a layer bit
/// of `W`: two waiting bodies then never pass the filter test, so no pair is lost. Bits
/// are taken greedily, the most common first, while the set stays valid; the set is kept
/// only when the bodies it makes wait are most of them (else reading whole neighbourhoods
/// for the seekers could cost more than it saves). Host-side, once per change of filters.
pub fn waiter_layers(infos: &[BodyInfo]) -> u32 {
    // The distinct filters and how many bodies carry each: a few in a game (player,
    // enemies, their bullets, walls). Past MAX_FILTERS nobody waits: the choice is
    // for scenes of a few roles, and counting stays one pass over the bodies.
    const MAX_FILTERS: usize = 64;
    let mut counted: Vec<((u32, u32), usize)> = Vec::new();
    let mut last = 0;
    for filter in infos
        .iter()
        .filter(|b| b.layer != 0 && b.mask != 0)
        .map(|b| (b.layer, b.mask))
    {
        // Bodies of one role tend to come in runs.
        if counted.get(last).is_some_and(|c| c.0 == filter) {
            counted[last].1 += 1;
            continue;
        }
        match counted.iter().position(|c| c.0 == filter) {
            Some(k) => {
                counted[k].1 += 1;
                last = k;
            }
            None if counted.len() == MAX_FILTERS => return 0,
            None => {
                last = counted.len();
                counted.push((filter, 1));
            }
        }
    }
    let mut bit_counts = [0usize; 32];
    for &((layer, _), n) in &counted {
        for (bit, count) in bit_counts.iter_mut().enumerate() {
            if layer >> bit & 1 == 1 {
                *count += n;
            }
        }
    }
    let mut bits: Vec<u32> = (0..32).filter(|&b| bit_counts[b as usize] > 0).collect();
    bits.sort_by_key(|&b| std::cmp::Reverse(bit_counts[b as usize]));
    let valid = |w: u32| {
        counted
            .iter()
            .all(|&((layer, mask), _)| layer & !w != 0 || mask & w == 0)
    };
    let mut chosen = 0u32;
    for bit in bits {
        if valid(chosen | 1 << bit) {
            chosen |= 1 << bit;
        }
    }
    let total: usize = counted.iter().map(|c| c.1).sum();
    let waiting: usize = counted
        .iter()
        .filter(|((layer, _), _)| layer & !chosen == 0)
        .map(|c| c.1)
        .sum();
    if chosen != 0 && 2 * waiting > total {
        chosen
    } else {
        0
    }
}

/// Whether a body of `layer` (not 0) waits to be found: its layer bits all wait. As
/// WGSL `waits`.
pub fn waits(params: &GridParams, layer: u32) -> bool {
    layer & !params.waiter_layers == 0
}

/// The median size of the bodies (by shape, weighted by how many bodies use each shape).
pub(crate) fn median_extent(library: &ShapeLibrary, infos: &[BodyInfo]) -> f32 {
    let mut uses = vec![0usize; library.len()];
    for info in infos {
        if let Some(n) = uses.get_mut(info.shape as usize) {
            *n += 1;
        }
    }
    let mut sizes: Vec<(f32, usize)> = library
        .extents
        .iter()
        .copied()
        .zip(uses.iter().copied())
        .filter(|&(extent, n)| n > 0 && extent > 0.0 && extent.is_finite())
        .collect();
    sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = sizes.iter().map(|s| s.1).sum::<usize>().div_ceil(2);
    let mut seen = 0;
    for (extent, n) in sizes {
        seen += n;
        if seen >= half {
            return extent;
        }
    }
    1.0
}

/// The finest level whose cells are at least as large as `extent` (with a hair of
/// margin, so rounding never puts two touching bodies two cells apart), or
/// [`TOP_LEVEL`]. As WGSL `level_of`.
pub fn level_of(params: &GridParams, extent: f32) -> u32 {
    let mut level = 0;
    let mut size = params.base_cell;
    while size < extent * 1.0001 && level < TOP_LEVEL {
        size *= 2.0;
        level += 1;
    }
    level
}

/// The side of a cell on `level`: `base_cell · 2^level`, as WGSL's `ldexp` gives it. The
/// power of two is built from its bits, where `powi` costs a call into the runtime (1% of
/// the cpu backend's bullet-hell frame).
pub fn level_cell(params: &GridParams, level: u32) -> f32 {
    params.base_cell * f32::from_bits((127 + level.min(127)) << 23)
}

/// The cell holding `point` on `level`; on [`TOP_LEVEL`] always `(0, 0)`. As WGSL `cell_at`.
pub fn cell_at(params: &GridParams, point: Vec2, level: u32) -> IVec2 {
    if level == TOP_LEVEL {
        return IVec2::ZERO;
    }
    let size = level_cell(params, level);
    // Clamp first: a float beyond i32's range does not convert. Clamping keeps cells in
    // order, so a search still finds every body whose cell was clamped. The bounds are
    // whole numbers, so clamping before the floor gives what the WGSL's floor-then-clamp
    // gives. (A NaN goes to the low bound here; checked bodies and queries hold none.)
    let q = (point / size).clamp(Vec2::splat(-1e9), Vec2::splat(1e9));
    floor_to_int(q)
}

/// `q.floor()` as integers, for `|q| <= 1e9`: truncated, then one less where that rounded
/// up. Without SSE4.1, which a portable build cannot assume, `floor` is a call into libm,
/// and it was 3% of the cpu backend's bullet-hell frame.
fn floor_to_int(q: Vec2) -> IVec2 {
    let t = q.as_ivec2();
    IVec2::select(t.as_vec2().cmpgt(q), t - IVec2::ONE, t)
}

#[cfg(feature = "internals")]
/// A word that is no box key ([`box_key`]): it meets every key. As WGSL `NO_BOX_KEY`.
pub const NO_BOX_KEY: u32 = u32::MAX;

#[cfg(feature = "internals")]
/// The widest key made for a body's box, in steps ([`box_key`]); a body's box, at most a
/// cell wide on its level, takes 18. As WGSL `BODY_KEY_WIDTH`.
pub const BODY_KEY_WIDTH: i32 = 20;

#[cfg(feature = "internals")]
/// The widest key made for a seeker's box on the level it reads. As WGSL
/// `SEEKER_KEY_WIDTH`.
pub const SEEKER_KEY_WIDTH: i32 = 100;

#[cfg(feature = "internals")]
/// How far from the origin, in steps, a box still gets a key. As WGSL `BOX_KEY_REACH`.
pub const BOX_KEY_REACH: f32 = 4_194_304.0;

#[cfg(feature = "internals")]
/// The box key of `bounds` on `level`: its corners in steps of a sixteenth of a cell,
/// widened by a step each way, each coordinate's low 8 bits (min.x, min.y, max.x, max.y
/// from the low byte up); [`NO_BOX_KEY`] on the top level, or where the box spans more
/// than `widest` steps or lies [`BOX_KEY_REACH`] steps or more from the origin. As WGSL
/// `box_key` (`shaders/grid.wgsl`), which says why [`box_keys_may_meet`] never drops
/// two boxes that meet. The GPU's walk tests keys, in its uniform form, before loading
/// an entry's box; the cpu twin loads the box, which costs a CPU no more than the key.
pub fn box_key(params: &GridParams, bounds: &Aabb, level: u32, widest: i32) -> u32 {
    if level == TOP_LEVEL {
        return NO_BOX_KEY;
    }
    let size = level_cell(params, level);
    let steps = |p: [f32; 2]| (Vec2::from(p) / size * 16.0).floor();
    let low = steps(bounds.min) - Vec2::ONE;
    let high = steps(bounds.max) + Vec2::ONE;
    // Written so that a NaN fails it.
    let within = |v: Vec2| v.abs().cmple(Vec2::splat(BOX_KEY_REACH)).all();
    if !(within(low) && within(high)) {
        return NO_BOX_KEY;
    }
    let (low, high) = (low.as_ivec2(), high.as_ivec2());
    if (high - low).cmpgt(IVec2::splat(widest)).any() {
        return NO_BOX_KEY;
    }
    let byte = |v: i32| v as u32 & 0xff;
    byte(low.x) | byte(low.y) << 8 | byte(high.x) << 16 | byte(high.y) << 24
}

#[cfg(feature = "internals")]
/// Whether boxes of keys `a` and `b` on one level may meet: false only where one lies
/// wholly before the other along an axis. As WGSL `box_keys_may_meet`.
pub fn box_keys_may_meet(a: u32, b: u32) -> bool {
    if a == NO_BOX_KEY || b == NO_BOX_KEY {
        return true;
    }
    let byte = |key: u32, k: u32| key >> (8 * k) & 0xff;
    // x - y modulo 256 under 128: x is at or after y, within half the wrap.
    let after = |x: u32, y: u32| x.wrapping_sub(y) & 0xff < 128;
    (0..2).all(|axis| {
        after(byte(a, 2 + axis), byte(b, axis)) && after(byte(b, 2 + axis), byte(a, axis))
    })
}

/// The hash-table bucket of a cell, laid out as [`GridParams::layout`] says: neighbours
/// in a row get neighbouring buckets; rows and levels are a stride apart. Integers
/// wrap: a cell far outside the layout's rectangle still gets a bucket (a shared one).
/// As WGSL `cell_bucket`.
pub fn cell_bucket(params: &GridParams, cell: IVec2, level: u32) -> u32 {
    let layout = &params.layout;
    let h = (cell.x as u32)
        .wrapping_add((cell.y as u32).wrapping_mul(layout.row_stride))
        .wrapping_add(level.wrapping_mul(layout.level_step));
    h & (params.bucket_count - 1)
}

/// The cells of `level` that can hold the centre of a body overlapping the box
/// `min ..= max`: a body on that level reaches at most half a cell from its centre
/// (on [`TOP_LEVEL`], the one cell). As (first, last) cells; as WGSL `probe_range`.
pub fn probe_range(params: &GridParams, min: Vec2, max: Vec2, level: u32) -> (IVec2, IVec2) {
    let half = 0.5 * level_cell(params, level);
    let first = cell_at(params, min - half, level);
    let last = cell_at(params, max + half, level);
    (first, last)
}

/// The cells of `level` that a body in cell `own` of level `own_level`, with the box
/// `min ..= max`, reads, row by row: its [`probe_range`], and on its own level, unless
/// `whole` (it looks for waiting bodies there), only its own cell and the cells after it
/// (two overlapping seekers of a level each have the other's cell in their range, so the
/// one in the earlier cell reports a pair of two cells, and the lower index a pair of
/// one: see [`reports_seeker`]). As the WGSL `broad` kernel's loops.
pub fn probed_cells(
    params: &GridParams,
    own: IVec2,
    own_level: u32,
    min: Vec2,
    max: Vec2,
    level: u32,
    whole: bool,
) -> impl Iterator<Item = IVec2> {
    let (first, last) = probe_range(params, min, max, level);
    let on_own = level == own_level && !whole;
    let first_y = if on_own { own.y.max(first.y) } else { first.y };
    (first_y..=last.y).flat_map(move |y| {
        let first_x = if on_own && y == own.y {
            own.x.max(first.x)
        } else {
            first.x
        };
        (first_x..=last.x).map(move |x| IVec2::new(x, y))
    })
}

/// Whether body `i`, in cell `own` of its level, reports a seeking body `other` found in
/// `cell` of `level`: only on a level it searches for seekers (`seekers`), and on its own
/// level only in its own cell (to a higher index) or a later one. As WGSL `reports_seeker`.
pub fn reports_seeker(
    seekers: bool,
    own: IVec2,
    own_level: u32,
    i: u32,
    cell: IVec2,
    level: u32,
    other: u32,
) -> bool {
    if !seekers {
        return false;
    }
    if level != own_level {
        return true;
    }
    cell.y > own.y || (cell.y == own.y && (cell.x > own.x || (cell.x == own.x && other > i)))
}

/// The levels one body searches, as bits: for seekers (`seekers`) and for waiting
/// bodies (`waiters`); see [`search_levels`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLevels {
    /// Levels where the body reports the seekers it finds.
    pub seekers: u32,
    /// Levels where it looks for waiting bodies (it reads their whole range there).
    pub waiters: u32,
}

/// The levels a body of `layer` and `mask` on `level` searches, each holding somebody it
/// accepts. Every candidate pair is then found exactly once:
/// - two seekers as between any two bodies before waiting existed: on one level, both
///   read and the earlier cell (or lower index) reports; between levels, the side that
///   `look_levels` names;
/// - a seeker and a waiter by the seeker: on its own level (reading its whole range), up
///   at coarser levels, and down at finer levels it may reach (`reach_floor`);
/// - a waiter on a level finer than a seeker's `reach_floor` by the waiter, looking up;
/// - two waiters never ([`waiter_layers`]).
///
/// As WGSL `search_levels`.
pub fn search_levels(
    params: &GridParams,
    info: &GridInfo,
    layer: u32,
    mask: u32,
    level: u32,
) -> SearchLevels {
    let mut seekers = 0u32;
    let mut waiters = 0u32;
    if waits(params, layer) {
        // Up at the seekers of levels that cannot reach down this far: one word for most
        // bullets, which have none.
        let mut up = info.waiter_looks[level as usize];
        while up != 0 {
            let other = up.trailing_zeros();
            up &= up - 1;
            if info.level_layers[other as usize] & mask != 0 {
                seekers |= 1 << other;
            }
        }
        return SearchLevels { seekers, waiters };
    }
    let mut occupied = info.occupied_levels;
    let looks = info.look_levels[level as usize];
    let floor = info.reach_floor[level as usize];
    while occupied != 0 {
        let other = occupied.trailing_zeros();
        occupied &= occupied - 1;
        let o = other as usize;
        if info.level_layers[o] & mask == 0 {
            continue;
        }
        if looks >> other & 1 == 1 {
            seekers |= 1 << other;
        }
        if info.level_waiters[o] & mask != 0 && (other >= level || other >= floor) {
            waiters |= 1 << other;
        }
    }
    SearchLevels { seekers, waiters }
}

/// The cells of `level` in [`probe_range`] of the box `min ..= max`, as a float (exact
/// while it matters, up to 2^24). As WGSL `probe_cells`.
pub fn probe_cells(params: &GridParams, min: Vec2, max: Vec2, level: u32) -> f32 {
    let (first, last) = probe_range(params, min, max, level);
    let span = (last - first + IVec2::ONE).as_vec2();
    span.x * span.y
}

/// How far down a body on `level` with the box `min ..= max` may reach: the finest level
/// `floor` such that reading every level from `level - 1` down to `floor` reads at most
/// [`REACH_BUDGET`] cells in all (`level` itself when it may reach none; always so on
/// [`TOP_LEVEL`]). `reached(f, cells)` hears the cells of each level it may reach. As WGSL
/// `lowest_reach`.
pub fn lowest_reach(
    params: &GridParams,
    min: Vec2,
    max: Vec2,
    level: u32,
    mut reached: impl FnMut(u32, u32),
) -> u32 {
    let mut floor = level;
    if level == TOP_LEVEL {
        return floor;
    }
    let mut total = 0.0;
    while floor > 0 {
        let cells = probe_cells(params, min, max, floor - 1);
        total += cells;
        if total > REACH_BUDGET as f32 {
            break;
        }
        floor -= 1;
        reached(floor, cells as u32);
    }
    floor
}

/// Whether the bodies of level `coarse` read the cells of the finer level `fine` under
/// them (else each body of `fine` looks at the `coarse` cells around it), from what the
/// frame measured: either finds every pair once; this picks the one that reads fewer
/// cells, allowed only where every body of `coarse` stays within [`REACH_BUDGET`]
/// (`reach_floor`) and never from [`TOP_LEVEL`].
///
/// The cells a coarse level would read are summed from its bodies' own boxes
/// (`reached_cells`), so a long thin wall reads the fine cells along it, not a square as
/// wide as it is long: measured on 50 walls 800 × 10 among 10k particles, the particles
/// otherwise each read every wall. The counts are measured by the frame itself (on the
/// GPU by `assign_cell`, in the bounds kernel), not predicted from the shapes: a prediction that put a body one
/// level off once made a 3000-unit square read four million cells. As WGSL
/// `reaches_down`.
pub fn reaches_down(info: &GridInfo, coarse: u32, fine: u32) -> bool {
    if coarse >= TOP_LEVEL || fine >= coarse || fine < info.reach_floor[coarse as usize] {
        return false;
    }
    // A fine body looks at about 4 coarse cells. In floats, as the GPU compares.
    let down = info.reached_cells[(coarse * MAX_LEVELS + fine) as usize] as f32;
    let up = info.level_bodies[fine as usize] as f32 * 4.0;
    down < up
}

/// [`reaches_down`] for every pair of levels: bit `f` of entry `c` is set when the bodies
/// of level `c` reach down to level `f`.
pub fn probe_down(info: &GridInfo) -> [u32; MAX_LEVELS as usize] {
    std::array::from_fn(|coarse| {
        (0..coarse as u32)
            .filter(|&fine| reaches_down(info, coarse as u32, fine))
            .fold(0, |bits, fine| bits | 1 << fine)
    })
}

/// Whether bodies on level `own` look for bodies on level `other`: on its own level a
/// body always looks (at its own cell and the cells after it, see
/// [`crate::cpu::broad::Grid::candidates_of`]); between two levels exactly one side
/// does, as `probe_down` says.
pub fn probes(probe_down: &[u32; MAX_LEVELS as usize], own: u32, other: u32) -> bool {
    if own == other {
        return true;
    }
    let (coarse, fine) = (own.max(other), own.min(other));
    let down = probe_down[coarse as usize] >> fine & 1 == 1;
    (own == coarse) == down
}

/// For each level `l`, the occupied levels above it whose seekers cannot all reach down
/// to `l` (`reach_floor`), as bits: the only levels where waiting bodies of `l` look, for
/// seekers. Worked out once a frame, so that a waiting body (most bullets) reads one word
/// and no more. As WGSL `choose_waiter_looks`.
pub fn waiter_looks(info: &GridInfo) -> [u32; MAX_LEVELS as usize] {
    std::array::from_fn(|own| {
        (own as u32 + 1..MAX_LEVELS)
            .filter(|&other| {
                info.occupied_levels >> other & 1 == 1
                    && (own as u32) < info.reach_floor[other as usize]
            })
            .fold(0, |bits, other| bits | 1 << other)
    })
}

/// For each level, the occupied levels its bodies search, as bits: worked out once a
/// frame so that a body reads one word instead of testing every level. As WGSL
/// `choose_look_levels`.
pub fn look_levels(
    probe_down: &[u32; MAX_LEVELS as usize],
    occupied: u32,
) -> [u32; MAX_LEVELS as usize] {
    std::array::from_fn(|own| {
        (0..MAX_LEVELS)
            .filter(|&other| occupied >> other & 1 == 1 && probes(probe_down, own as u32, other))
            .fold(0, |bits, other| bits | 1 << other)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_to_int_is_the_floor() {
        let mut values = vec![
            0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1e9, -1e9, 8388607.5, -8388607.5,
        ];
        values.extend((-3000..3000).map(|k| k as f32 * 0.37));
        values.extend([
            f32::EPSILON,
            -f32::EPSILON,
            1e-30,
            -1e-30,
            999_999_940.0,
            -999_999_940.0,
        ]);
        for v in values {
            let q = Vec2::new(v, -v);
            assert_eq!(floor_to_int(q), q.floor().as_ivec2(), "{v}");
        }
        let params = GridParams {
            base_cell: 3.0,
            bucket_count: 1024,
            waiter_layers: 0,
            layout: TableLayout::SCATTERED,
        };
        // Past the clamp, and a NaN, as the WGSL's floor-then-clamp.
        assert_eq!(
            cell_at(&params, Vec2::new(1e30, -1e30), 0),
            IVec2::new(1_000_000_000, -1_000_000_000)
        );
        assert_eq!(
            cell_at(&params, Vec2::new(f32::NAN, 7.0), 0),
            IVec2::new(-1_000_000_000, 2)
        );
    }

    #[test]
    fn a_rectangle_that_fits_gives_every_cell_of_every_level_its_own_bucket() {
        let (min, max) = (Vec2::new(-133.0, 41.5), Vec2::new(466.0, 297.0));
        let (base_cell, bucket_count) = (7.5, 16384);
        let layout = TableLayout::around(min, max, base_cell, 5, bucket_count);
        assert_ne!(layout, TableLayout::SCATTERED);
        let params = GridParams {
            base_cell,
            bucket_count,
            waiter_layers: 0,
            layout,
        };
        let mut owner = std::collections::HashMap::new();
        for level in 0..5 {
            let (first, last) = (cell_at(&params, min, level), cell_at(&params, max, level));
            for y in first.y..=last.y {
                for x in first.x..=last.x {
                    let cell = IVec2::new(x, y);
                    let bucket = cell_bucket(&params, cell, level);
                    assert!(bucket < bucket_count);
                    if let Some(other) = owner.insert(bucket, (level, cell)) {
                        panic!("bucket {bucket}: {other:?} and {:?}", (level, cell));
                    }
                }
            }
        }
        // Neighbours in a row stay neighbours, which the queries' row reads rely on.
        let cell = cell_at(&params, min, 0);
        let next = cell_bucket(&params, cell + IVec2::X, 0);
        assert_eq!(next, cell_bucket(&params, cell, 0) + 1);
        // A rectangle too large for the table is scattered, as is one of no extent.
        let far = Vec2::new(1e6, 1e6);
        assert_eq!(
            TableLayout::around(min, far, base_cell, 5, bucket_count),
            TableLayout::SCATTERED
        );
        let huge = Vec2::new(-1e30, -1e30);
        assert_eq!(
            TableLayout::around(huge, far, base_cell, 5, bucket_count),
            TableLayout::SCATTERED
        );
    }

    #[test]
    fn reaching_down_is_bounded_and_chosen_only_when_cheaper() {
        let mut info = GridInfo::default();
        info.level_bodies[0] = 1_000_000;
        info.level_bodies[3] = 300;
        info.level_bodies[12] = 1;
        info.level_bodies[TOP_LEVEL as usize] = 1;
        // The ships of level 3 may reach down to level 0, 100 cells each there.
        info.reached_cells[(3 * MAX_LEVELS) as usize] = 300 * 100;
        // The body of level 12 may reach no further down than level 9.
        info.reach_floor[12] = 9;
        info.reached_cells[(12 * MAX_LEVELS) as usize] = 10;
        info.reach_floor[3] = 0;
        info.occupied_levels = 1 | 1 << 3 | 1 << 12 | 1 << TOP_LEVEL;
        let down = probe_down(&info);
        let look = look_levels(&down, info.occupied_levels);
        // 300 ships over a million bullets: the ships reach down (30000 cells < 4e6).
        assert_eq!(down[3] & 1, 1);
        // Level 12 may not reach level 0, however few its bodies and cells.
        assert_eq!(down[12] & 1, 0);
        // The top level never reach down.
        assert_eq!(down[TOP_LEVEL as usize], 0);
        // An empty fine level is never read from above.
        assert_eq!(down[3] >> 1 & 1, 0);
        // Bullets look only among themselves and up at what does not reach down to them.
        assert_eq!(look[0], 1 | 1 << 12 | 1 << TOP_LEVEL);
        assert_eq!(look[3], 1 << 3 | 1 | 1 << 12 | 1 << TOP_LEVEL);
    }

    #[test]
    fn a_thin_wall_reaches_far_down_and_a_square_as_wide_does_not() {
        let params = GridParams {
            base_cell: 10.0,
            bucket_count: 1024,
            waiter_layers: 0,
            layout: TableLayout::SCATTERED,
        };
        let reach = |min: Vec2, max: Vec2| {
            let level = level_of(&params, (max - min).max_element());
            let mut cells = 0;
            let floor = lowest_reach(&params, min, max, level, |_, n| cells += n);
            (level, floor, cells)
        };
        // 800 x 10: level 7 (cells 1280), and every level below within the budget.
        let (level, floor, cells) = reach(Vec2::new(0.0, 0.0), Vec2::new(800.0, 10.0));
        assert_eq!((level, floor), (7, 0));
        assert!(cells <= REACH_BUDGET, "{cells}");
        // 800 x 800: the same level, but level 0 alone would be some 6700 cells.
        let (level, floor, cells) = reach(Vec2::new(0.0, 0.0), Vec2::new(800.0, 800.0));
        assert_eq!(level, 7);
        assert_eq!(floor, 1);
        assert!(cells <= REACH_BUDGET, "{cells}");
        // The top level never reach down.
        assert_eq!(reach(Vec2::splat(-1e20), Vec2::splat(1e20)).1, TOP_LEVEL);
    }

    fn filters(list: &[(u32, u32, usize)]) -> Vec<BodyInfo> {
        list.iter()
            .flat_map(|&(layer, mask, n)| {
                std::iter::repeat_n(
                    BodyInfo {
                        layer,
                        mask,
                        owner: crate::layout::packed::NO_OWNER,
                        ..bytemuck::Zeroable::zeroed()
                    },
                    n,
                )
            })
            .collect()
    }

    #[test]
    fn bodies_wait_only_where_no_two_waiters_could_pair_and_most_wait() {
        // Bullet-hell: bullets (4: enemy's, 8: player's) wait, the ships search.
        let game = filters(&[(1, 4, 1), (2, 8, 300), (4, 1, 90_000), (8, 2, 10_000)]);
        assert_eq!(waiter_layers(&game), 4 | 8);
        // Particles that collide among themselves: nobody may wait.
        assert_eq!(waiter_layers(&filters(&[(1, 1, 10_000)])), 0);
        // Particles among walls that accept them: the walls could wait, but they are few,
        // and the particles would read whole neighbourhoods to find them.
        let walls = filters(&[(1, 3, 10_000), (2, 1, 50)]);
        assert_eq!(waiter_layers(&walls), 0);
        // A body of two layers waits only if both wait; one accepting a waiting layer
        // keeps that layer from waiting if it would wait itself.
        let mixed = filters(&[(4 | 16, 1, 500), (4, 1, 600), (1, 4 | 16, 10), (16, 16, 1)]);
        let w = waiter_layers(&mixed);
        assert_eq!(w & 4, 4);
        assert_eq!(w & 16, 0, "16 accepts 16");
        // Bodies that accept or offer nothing are left out of the choice.
        assert_eq!(waiter_layers(&filters(&[(0, 1, 10), (1, 0, 10)])), 0);
        // Bodies in any order count the same; past 64 distinct filters nobody waits.
        let mut shuffled = game.clone();
        shuffled.reverse();
        shuffled.swap(0, 50_000);
        assert_eq!(waiter_layers(&shuffled), 4 | 8);
        let many: Vec<_> = (1..=65).map(|k| (4, k << 8 | 1, 100)).collect();
        assert_eq!(waiter_layers(&filters(&many)), 0);
        assert_eq!(waiter_layers(&filters(&many[..64])), 4);
    }

    #[test]
    fn the_top_level_is_one_cell() {
        let params = GridParams {
            base_cell: 1.0,
            bucket_count: 1024,
            waiter_layers: 0,
            layout: TableLayout::SCATTERED,
        };
        assert_eq!(level_of(&params, 1e20), TOP_LEVEL);
        let (first, last) = probe_range(&params, Vec2::splat(-1e20), Vec2::splat(1e20), TOP_LEVEL);
        assert_eq!((first, last), (IVec2::ZERO, IVec2::ZERO));
    }

    fn unit_params(base_cell: f32) -> GridParams {
        GridParams {
            base_cell,
            bucket_count: 1024,
            waiter_layers: 0,
            layout: TableLayout::SCATTERED,
        }
    }

    fn aabb(min: Vec2, max: Vec2) -> Aabb {
        Aabb {
            min: min.into(),
            max: max.into(),
        }
    }

    /// `bounds` with each side moved inwards by `ulps` floats: the seeker's box as
    /// another kernel, whose roundings of p / cell may differ by a float spacing, sees it.
    fn shrunk(bounds: &Aabb, ulps: u32) -> Aabb {
        let min = bounds.min.map(|v| (0..ulps).fold(v, |v, _| v.next_up()));
        let max = bounds.max.map(|v| (0..ulps).fold(v, |v, _| v.next_down()));
        Aabb { min, max }
    }

    #[test]
    fn box_keys_part_boxes_a_few_steps_apart_and_never_those_that_meet() {
        let params = unit_params(1.0);
        let body = aabb(Vec2::new(0.0, 0.0), Vec2::new(0.5, 0.5));
        let key = |b: &Aabb, level, widest| box_key(&params, b, level, widest);
        let body_key = key(&body, 0, BODY_KEY_WIDTH);
        assert_ne!(body_key, NO_BOX_KEY);
        // Touching along x, and overlapping: they may meet.
        for seeker in [
            aabb(Vec2::new(0.5, 0.2), Vec2::new(0.9, 0.3)),
            aabb(Vec2::new(-3.0, -3.0), Vec2::new(0.0, 0.0)),
            aabb(Vec2::new(0.1, 0.1), Vec2::new(0.2, 0.2)),
        ] {
            assert!(box_keys_may_meet(
                key(&seeker, 0, SEEKER_KEY_WIDTH),
                body_key
            ));
        }
        // A quarter of a cell apart along either axis, on either side: they do not.
        for seeker in [
            aabb(Vec2::new(0.75, 0.0), Vec2::new(1.0, 0.5)),
            aabb(Vec2::new(0.0, 0.75), Vec2::new(0.5, 2.0)),
            aabb(Vec2::new(-1.0, 0.0), Vec2::new(-0.25, 0.5)),
            aabb(Vec2::new(0.0, -1.0), Vec2::new(0.5, -0.25)),
        ] {
            let seeker_key = key(&seeker, 0, SEEKER_KEY_WIDTH);
            assert!(!box_keys_may_meet(seeker_key, body_key), "{seeker:?}");
            assert!(!box_keys_may_meet(body_key, seeker_key), "{seeker:?}");
        }
        // 200 cells on: the low bits alone would read the boxes as meeting, 16 cells
        // on they wrap round to the same steps.
        let far = aabb(Vec2::new(200.75, 0.0), Vec2::new(201.0, 0.5));
        assert!(!box_keys_may_meet(key(&far, 0, SEEKER_KEY_WIDTH), body_key));
        // No key: the top level, a box wider than allowed, a box too far out, a NaN.
        assert_eq!(key(&body, TOP_LEVEL, BODY_KEY_WIDTH), NO_BOX_KEY);
        assert_eq!(key(&aabb(Vec2::ZERO, Vec2::splat(7.0)), 0, 100), NO_BOX_KEY);
        assert_ne!(key(&aabb(Vec2::ZERO, Vec2::splat(5.0)), 0, 100), NO_BOX_KEY);
        let out = aabb(Vec2::splat(262_200.0), Vec2::splat(262_200.5));
        assert_eq!(key(&out, 0, BODY_KEY_WIDTH), NO_BOX_KEY);
        let nan = aabb(Vec2::new(f32::NAN, 0.0), Vec2::new(1.0, 1.0));
        assert_eq!(key(&nan, 0, BODY_KEY_WIDTH), NO_BOX_KEY);
        assert!(box_keys_may_meet(NO_BOX_KEY, body_key) && box_keys_may_meet(body_key, NO_BOX_KEY));
        // The twin of the shrinking the test below relies on.
        let s = shrunk(&aabb(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)), 1);
        assert!(s.min[0] > -1.0 && s.min[1] > 0.0 && s.max[0] < 1.0 && s.max[1] < 0.0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(4000))]
        /// A body's box (at most a cell wide on its level, as `level_of` places it) and a
        /// box that touches or overlaps it, anywhere from the origin to 2^24 cells out:
        /// their keys always may meet, also with the seeker's box seen a few floats
        /// smaller, as by another kernel's rounding.
        #[test]
        fn box_keys_of_boxes_that_meet_may_meet(
            base_cell in 0.01f32..64.0,
            level in proptest::prop_oneof![0u32..6, 6u32..TOP_LEVEL + 1],
            exponent in 0i32..25,
            centre in (-1.0f32..1.0, -1.0f32..1.0),
            half in (0.0f32..0.49995, 0.0f32..0.49995),
            at in (0.0f32..1.0, 0.0f32..1.0, 0usize..4),
            reach in (0.0f32..3.0, 0.0f32..3.0, 0.0f32..3.0, 0.0f32..3.0, 0usize..3),
            ulps in 0u32..3,
        ) {
            let params = unit_params(base_cell);
            let cell = level_cell(&params, level);
            let centre = Vec2::new(centre.0, centre.1) * cell * (exponent as f32).exp2();
            let half = Vec2::new(half.0, half.1) * cell;
            let body = aabb(centre - half, centre + half);
            // A point of the body's box: inside, or on a side (where the two touch).
            let t = match at.2 {
                0 => Vec2::new(at.0, at.1),
                1 => Vec2::new(1.0, at.1),
                2 => Vec2::new(at.0, 0.0),
                _ => Vec2::new(0.0, 1.0),
            };
            let point = Vec2::from(body.min) + (Vec2::from(body.max) - Vec2::from(body.min)) * t;
            // Reaching from that point, or ending on it.
            let (mut below, mut above) = (Vec2::new(reach.0, reach.1), Vec2::new(reach.2, reach.3));
            match reach.4 {
                0 => below = Vec2::ZERO,
                1 => above = Vec2::ZERO,
                _ => {}
            }
            let seeker = aabb(point - below * cell, point + above * cell);
            let meet = (0..2).all(|a| seeker.min[a] <= body.max[a] && body.min[a] <= seeker.max[a]);
            proptest::prop_assume!(meet);
            let body_key = box_key(&params, &body, level, BODY_KEY_WIDTH);
            for seen in [seeker, shrunk(&seeker, ulps)] {
                let seeker_key = box_key(&params, &seen, level, SEEKER_KEY_WIDTH);
                proptest::prop_assert!(
                    box_keys_may_meet(seeker_key, body_key),
                    "body {:?} key {:08x}, seeker {:?} key {:08x}", body, body_key, seen, seeker_key
                );
            }
        }
    }
}
