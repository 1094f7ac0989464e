//! The shapes a body can have: convex polygons, circles, capsules, concave polygons,
//! compounds of those and bitmasks, in local
//! coordinates, and the rules each must follow (checked by [`crate::ShapeLibrary::new`]);
//! and their kinds ([`ShapeKind`]) and the pairs of kinds ([`PairKind`]) that every
//! stage's tests are chosen by.
//!
//! The kinds are data: their number, the pairs, the bins the GPU keeps candidates in and
//! the bits a candidate spends on its pair all follow from [`ShapeKind::ALL`], in Rust and
//! (through the constants `crate::layout::packed` writes) in WGSL. Every match on a kind or a
//! pair of kinds names each case, so a new kind does not compile until each stage says
//! how it tests it.

use glam::Vec2;

/// Most vertices a polygon may have. The separating axis test costs
/// `O(n·m)` per polygon pair, so very large polygons are better split.
pub const MAX_POLYGON_VERTICES: usize = 256;

/// Largest bitmask width or height, in pixels.
pub const MAX_BITMASK_SIDE: u32 = 8192;

/// Declares [`ShapeKind`] from one list of `Variant = "name"`: the enum, its numbering in
/// the order listed, and [`ShapeKind::ALL`], so that the list cannot fall out of step
/// with the enum.
macro_rules! shape_kinds {
    ($($(#[$doc:meta])* $kind:ident = $name:literal,)+) => {
        /// What a shape is, as stored in `PackedShape::kind` (its [`ShapeKind::index`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ShapeKind {
            $($(#[$doc])* $kind,)+
        }

        impl ShapeKind {
            /// Every kind, in index order.
            pub const ALL: &'static [ShapeKind] = &[$(ShapeKind::$kind),+];

            /// The kind's name in lower case, as kernels and messages spell it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(ShapeKind::$kind => $name,)+
                }
            }
        }
    };
}

shape_kinds! {
    /// A convex polygon.
    Polygon = "polygon",
    /// A circle.
    Circle = "circle",
    /// A capsule: the points within a radius of a segment (a segment, a point or a
    /// circle off the body's origin when the radius or the length is 0).
    Capsule = "capsule",
    /// A bitmask.
    Bitmask = "bitmask",
}

impl ShapeKind {
    /// How many kinds there are.
    pub const COUNT: u32 = ShapeKind::ALL.len() as u32;

    /// The kind's number, `PackedShape::kind`: its place in [`ShapeKind::ALL`].
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// The kind numbered `index`, if any.
    pub fn from_index(index: u32) -> Option<ShapeKind> {
        ShapeKind::ALL.get(index as usize).copied()
    }
}

/// An unordered pair of shape kinds, stored with the lower kind first, numbered
/// `0 .. PairKind::COUNT`: the pairs whose lower kind is `l` come after those of every
/// kind below `l`, in the order of their higher kind (polygon-polygon 0, polygon-circle
/// 1, polygon-capsule 2, polygon-bitmask 3, circle-circle 4, and so on). WGSL `pair_kind` numbers them alike, and each
/// has a `PAIR_*` constant there (`crate::layout::packed::wgsl_constants`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PairKind {
    low: ShapeKind,
    high: ShapeKind,
}

impl PairKind {
    /// How many pairs of kinds there are: `n·(n + 1) / 2` for `n` kinds.
    pub const COUNT: u32 = ShapeKind::COUNT * (ShapeKind::COUNT + 1) / 2;

    /// The pair of kinds `a` and `b`, in either order.
    pub fn of(a: ShapeKind, b: ShapeKind) -> PairKind {
        PairKind {
            low: a.min(b),
            high: a.max(b),
        }
    }

    /// Every pair, in index order.
    pub fn all() -> impl Iterator<Item = PairKind> {
        ShapeKind::ALL.iter().flat_map(|&low| {
            ShapeKind::ALL[low.index() as usize..]
                .iter()
                .map(move |&high| PairKind { low, high })
        })
    }

    /// The lower kind and the higher (equal for a pair of one kind).
    pub fn kinds(self) -> (ShapeKind, ShapeKind) {
        (self.low, self.high)
    }

    /// The pair's number (see [`PairKind`]); WGSL `pair_kind`.
    pub const fn index(self) -> u32 {
        let (low, high) = (self.low.index(), self.high.index());
        low * (2 * ShapeKind::COUNT + 1 - low) / 2 + high - low
    }

    /// The pair's name, `low_high` (`polygon_circle`): its narrow kernel is
    /// `narrow_` and its name, its WGSL constant `PAIR_` and its name in upper case.
    pub fn name(self) -> String {
        format!("{}_{}", self.low.name(), self.high.name())
    }
}

/// One shape of the library, shared by any number of bodies.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A convex polygon.
    Polygon(Polygon),
    /// A circle centred on the body's origin.
    Circle(Circle),
    /// The points within a radius of a segment.
    Capsule(Capsule),
    /// A simple polygon, convex or not, which the library cuts into convex pieces.
    Concave(Concave),
    /// The union of other shapes of the library, each placed in the compound's frame.
    Compound(Compound),
    /// A 1-bit-per-pixel mask whose pixel `(c, r)` covers `[x + c, x + c + 1) × [y + r, y + r + 1)`.
    Bitmask(Bitmask),
}

impl Shape {
    /// The kind the stages test this shape as; `None` for a concave or compound shape,
    /// which they test part by part.
    pub fn kind(&self) -> Option<ShapeKind> {
        match self {
            Shape::Polygon(_) => Some(ShapeKind::Polygon),
            Shape::Circle(_) => Some(ShapeKind::Circle),
            Shape::Capsule(_) => Some(ShapeKind::Capsule),
            Shape::Bitmask(_) => Some(ShapeKind::Bitmask),
            Shape::Concave(_) | Shape::Compound(_) => None,
        }
    }
}

/// A simple polygon given by its outline, in either winding: no two edges cross or
/// touch but neighbours at their shared vertex, no vertex repeats, and the area is not
/// zero. Straight vertices on a side are allowed; so is a convex outline. The library
/// cuts it into convex pieces once ([`crate::ShapeLibrary::parts`] lists them).
///
/// ```
/// use gpu_collide::{Concave, Shape, ShapeLibrary, glam::Vec2};
/// // A "U": three convex pieces at least.
/// let u = Concave::new(
///     [[0.0, 0.0], [3.0, 0.0], [3.0, 3.0], [2.0, 3.0], [2.0, 1.0], [1.0, 1.0], [1.0, 3.0], [0.0, 3.0]]
///         .map(Vec2::from)
///         .to_vec(),
/// );
/// let library = ShapeLibrary::new(&[Shape::Concave(u)])?;
/// assert!(library.parts(0).len() >= 3);
/// # Ok::<(), gpu_collide::SceneError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Concave {
    /// The outline's vertices in order.
    pub vertices: Vec<Vec2>,
}

impl Concave {
    /// The polygon with this outline. Its rules are checked when the library is built.
    pub fn new(vertices: Vec<Vec2>) -> Self {
        Concave { vertices }
    }
}

/// The union of other shapes of the same library, each placed in the compound's frame.
///
/// ```
/// use gpu_collide::{Capsule, Circle, Compound, Part, Shape, ShapeLibrary, glam::Vec2};
/// // A ship: a hull and two wings, one capsule placed twice.
/// let shapes = [
///     Shape::Circle(Circle::new(2.0)),
///     Shape::Capsule(Capsule::new(Vec2::ZERO, Vec2::new(4.0, 0.0), 0.5)),
///     Shape::Compound(Compound::new(vec![
///         Part::new(0),
///         Part::new(1).at(Vec2::new(1.0, 1.5)).turned(0.3),
///         Part::new(1).at(Vec2::new(1.0, -1.5)).turned(-0.3),
///     ])),
/// ];
/// let library = ShapeLibrary::new(&shapes)?;
/// assert_eq!(library.parts(2).len(), 3);
/// # Ok::<(), gpu_collide::SceneError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Compound {
    /// The parts, numbered in this order (a concave part counts as its pieces).
    pub parts: Vec<Part>,
}

impl Compound {
    /// The union of these parts.
    pub fn new(parts: Vec<Part>) -> Self {
        Compound { parts }
    }
}

/// A part of a [`Compound`]: shape `shape` of the library (not a compound, not a
/// bitmask), turned by `angle` and moved by `offset` in the compound's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// The index of the part's shape in the library.
    pub shape: u32,
    /// Where the part's origin lies in the compound's frame.
    pub offset: Vec2,
    /// The part's turn about its origin, counter-clockwise in radians.
    pub angle: f32,
}

impl Part {
    /// Shape `shape` at the compound's origin, unturned.
    pub fn new(shape: u32) -> Self {
        Part {
            shape,
            offset: Vec2::ZERO,
            angle: 0.0,
        }
    }

    /// The part with its origin at `offset`.
    pub fn at(self, offset: Vec2) -> Self {
        Part { offset, ..self }
    }

    /// The part turned by `angle`.
    pub fn turned(self, angle: f32) -> Self {
        Part { angle, ..self }
    }
}

/// A convex polygon given by its vertices, in either winding.
///
/// ```
/// use gpu_collide::{Polygon, glam::Vec2};
/// let triangle = Polygon::new(vec![Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0), Vec2::new(0.0, 2.0)]);
/// assert_eq!(triangle.vertices.len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    /// The vertices in order around the polygon (clockwise or counter-clockwise).
    pub vertices: Vec<Vec2>,
}

impl Polygon {
    /// A polygon with these vertices. Convexity is checked when the shape library is built.
    pub fn new(vertices: Vec<Vec2>) -> Self {
        Polygon { vertices }
    }

    /// An axis-aligned rectangle centred on the origin.
    pub fn rectangle(width: f32, height: f32) -> Self {
        let (w, h) = (width / 2.0, height / 2.0);
        Polygon::new(vec![
            Vec2::new(-w, -h),
            Vec2::new(w, -h),
            Vec2::new(w, h),
            Vec2::new(-w, h),
        ])
    }

    /// A regular polygon with `sides` vertices on a circle of `radius` around the origin.
    pub fn regular(sides: usize, radius: f32) -> Self {
        let vertices = (0..sides)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / sides as f64;
                Vec2::new(
                    (radius as f64 * a.cos()) as f32,
                    (radius as f64 * a.sin()) as f32,
                )
            })
            .collect();
        Polygon::new(vertices)
    }
}

/// A circle centred on the body's origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Circle {
    /// The radius; finite and greater than zero.
    pub radius: f32,
}

impl Circle {
    /// A circle of this radius.
    pub fn new(radius: f32) -> Self {
        Circle { radius }
    }
}

/// Every point within `radius` of the segment from `a` to `b`, in the body's frame.
///
/// With `radius` 0 it is the segment itself (a laser, a line of sight), with `a == b` and
/// `radius` 0 a point (a particle), and with `a == b` a circle centred on `a`.
///
/// ```
/// use gpu_collide::{Capsule, glam::Vec2};
/// let laser = Capsule::segment(Vec2::new(-100.0, 0.0), Vec2::new(100.0, 0.0));
/// assert_eq!(laser.radius, 0.0);
/// let particle = Capsule::point(Vec2::ZERO);
/// assert_eq!(particle.a, particle.b);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// One end of the segment.
    pub a: Vec2,
    /// The other end (may equal `a`).
    pub b: Vec2,
    /// How far the region reaches from the segment; finite and at least 0.
    pub radius: f32,
}

impl Capsule {
    /// The points within `radius` of the segment from `a` to `b`.
    pub fn new(a: Vec2, b: Vec2, radius: f32) -> Self {
        Capsule { a, b, radius }
    }

    /// The segment from `a` to `b`, of no width.
    pub fn segment(a: Vec2, b: Vec2) -> Self {
        Capsule::new(a, b, 0.0)
    }

    /// The single point `p`.
    pub fn point(p: Vec2) -> Self {
        Capsule::new(p, p, 0.0)
    }
}

/// A 1-bit-per-pixel mask, packed 32 pixels to a `u32` word, each row starting on
/// a new word (bit `k` of word `w` of a row is column `32 w + k`).
///
/// ```
/// use gpu_collide::Bitmask;
/// let mask = Bitmask::from_rows(&[".#.", "###"]).unwrap();
/// assert!(mask.get(1, 0) && !mask.get(0, 0) && mask.get(0, 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bitmask {
    width: u32,
    height: u32,
    words: Vec<u32>,
}

impl Bitmask {
    /// An all-clear mask of `width × height` pixels (each from 1 to [`MAX_BITMASK_SIDE`]).
    pub fn new(width: u32, height: u32) -> Result<Self, String> {
        for (name, side) in [("width", width), ("height", height)] {
            if side == 0 || side > MAX_BITMASK_SIDE {
                return Err(format!("{name} {side} is outside 1..={MAX_BITMASK_SIDE}"));
            }
        }
        let words = vec![0; words_per_row(width) as usize * height as usize];
        Ok(Bitmask {
            width,
            height,
            words,
        })
    }

    /// A mask from row strings of `#` (set) and `.` (clear), all of the same length.
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Self, String> {
        let width = rows.first().map_or(0, |r| r.as_ref().chars().count());
        let mut mask = Bitmask::new(
            u32::try_from(width).unwrap_or(u32::MAX),
            u32::try_from(rows.len()).unwrap_or(u32::MAX),
        )?;
        for (r, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            let len = row.chars().count();
            if len != width {
                return Err(format!(
                    "row {r} has {len} characters, expected width {width}"
                ));
            }
            for (c, ch) in row.chars().enumerate() {
                match ch {
                    '#' => mask.set(c as u32, r as u32, true),
                    '.' => {}
                    other => {
                        return Err(format!(
                            "row {r} column {c}: {other:?} is neither '#' nor '.'"
                        ))
                    }
                }
            }
        }
        Ok(mask)
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels (rows).
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The packed words, row after row, [`words_per_row`] words a row.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Whether pixel `(column, row)` is set; pixels outside the mask are clear.
    pub fn get(&self, column: u32, row: u32) -> bool {
        if column >= self.width || row >= self.height {
            return false;
        }
        let word = self.words[self.word_index(column, row)];
        word >> (column % 32) & 1 == 1
    }

    /// Sets or clears pixel `(column, row)`; pixels outside the mask are ignored.
    pub fn set(&mut self, column: u32, row: u32, value: bool) {
        if column >= self.width || row >= self.height {
            return;
        }
        let index = self.word_index(column, row);
        let bit = 1u32 << (column % 32);
        if value {
            self.words[index] |= bit;
        } else {
            self.words[index] &= !bit;
        }
    }

    /// The rows as strings of `#` and `.`, as in the scene format.
    pub fn to_rows(&self) -> Vec<String> {
        (0..self.height)
            .map(|r| {
                (0..self.width)
                    .map(|c| if self.get(c, r) { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    fn word_index(&self, column: u32, row: u32) -> usize {
        (row * words_per_row(self.width) + column / 32) as usize
    }
}

/// Words a bitmask row of `width` pixels takes.
pub fn words_per_row(width: u32) -> u32 {
    width.div_ceil(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_numbered_in_the_order_listed() {
        for (i, &kind) in ShapeKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i as u32);
            assert_eq!(ShapeKind::from_index(i as u32), Some(kind));
        }
        assert_eq!(ShapeKind::from_index(ShapeKind::COUNT), None);
    }

    #[test]
    fn pairs_of_kinds_are_numbered_once_each_in_order() {
        let pairs: Vec<PairKind> = PairKind::all().collect();
        assert_eq!(pairs.len() as u32, PairKind::COUNT);
        for (i, pair) in pairs.iter().enumerate() {
            assert_eq!(pair.index(), i as u32, "{}", pair.name());
            let (low, high) = pair.kinds();
            assert!(low <= high);
            assert_eq!(PairKind::of(high, low), *pair);
        }
        for &a in ShapeKind::ALL {
            for &b in ShapeKind::ALL {
                assert!(PairKind::of(a, b).index() < PairKind::COUNT);
            }
        }
        let names: Vec<String> = pairs.iter().map(|p| p.name()).collect();
        assert_eq!(names[1], "polygon_circle");
        assert_eq!(names[2], "polygon_capsule");
        assert_eq!(names[9], "bitmask_bitmask");
    }
}
