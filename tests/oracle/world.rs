//! Shapes placed in the world, and whether and how far apart two of them are.

use super::*;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Aabb {
    pub(crate) min: V,
    pub(crate) max: V,
}

pub(crate) enum Placed<'s> {
    /// World vertices, counter-clockwise (rotation keeps the winding).
    Polygon(Vec<V>),
    Circle {
        centre: V,
        radius: f64,
    },
    Bitmask {
        ox: i64,
        oy: i64,
        bits: &'s Bitmask,
    },
    /// A shape of format 1.2: the union of rounded convex pieces, in world coordinates.
    Rounded(Vec<Piece>),
}

impl Placed<'_> {
    pub(crate) fn is_bitmask(&self) -> bool {
        matches!(self, Placed::Bitmask { .. })
    }

    /// The shape as rounded convex pieces; `None` for a bitmask.
    pub(crate) fn pieces(&self) -> Option<Vec<Piece>> {
        match self {
            Placed::Polygon(p) => Some(vec![Piece {
                hull: p.clone(),
                radius: 0.0,
            }]),
            Placed::Circle { centre, radius } => Some(vec![Piece {
                hull: vec![*centre],
                radius: *radius,
            }]),
            Placed::Rounded(pieces) => Some(pieces.clone()),
            Placed::Bitmask { .. } => None,
        }
    }

    /// Exact world box (of the set cells, for a bitmask); `None` for an empty bitmask,
    /// which can never collide.
    pub(crate) fn aabb(&self) -> Option<Aabb> {
        match self {
            Placed::Polygon(poly) => {
                let (min, max) = poly.iter().fold(
                    (
                        V::new(f64::INFINITY, f64::INFINITY),
                        V::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
                    ),
                    |(lo, hi), p| {
                        (
                            V::new(lo.x.min(p.x), lo.y.min(p.y)),
                            V::new(hi.x.max(p.x), hi.y.max(p.y)),
                        )
                    },
                );
                Some(Aabb { min, max })
            }
            Placed::Circle { centre, radius } => Some(Aabb {
                min: V::new(centre.x - radius, centre.y - radius),
                max: V::new(centre.x + radius, centre.y + radius),
            }),
            Placed::Bitmask { ox, oy, bits } => bits.set_bounds.map(|(c0, r0, c1, r1)| Aabb {
                min: V::new((ox + c0) as f64, (oy + r0) as f64),
                max: V::new((ox + c1) as f64, (oy + r1) as f64),
            }),
            Placed::Rounded(pieces) => Some(
                pieces
                    .iter()
                    .flat_map(|p| {
                        p.hull.iter().map(|v| {
                            (
                                V::new(v.x - p.radius, v.y - p.radius),
                                V::new(v.x + p.radius, v.y + p.radius),
                            )
                        })
                    })
                    .fold(
                        Aabb {
                            min: V::new(f64::INFINITY, f64::INFINITY),
                            max: V::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
                        },
                        |b, (lo, hi)| Aabb {
                            min: V::new(b.min.x.min(lo.x), b.min.y.min(lo.y)),
                            max: V::new(b.max.x.max(hi.x), b.max.y.max(hi.y)),
                        },
                    ),
            ),
        }
    }
}

/// Signed distance between two placed shapes (see [`signed_distance`]). Bitmask cells
/// farther than `reach` from the box of the other shape are not looked at, so a result
/// above `reach` only means "farther than `reach`"; a result below `-BAND` only means "deep".
pub(crate) fn placed_distance(a: &Placed, b: &Placed, reach: f64) -> f64 {
    use Placed::*;
    match (a, b) {
        (Polygon(p), Polygon(q)) => polygon_polygon(p, q),
        (Circle { centre, radius }, Polygon(p)) | (Polygon(p), Circle { centre, radius }) => {
            circle_polygon(*centre, *radius, p)
        }
        (
            Circle {
                centre: c1,
                radius: r1,
            },
            Circle {
                centre: c2,
                radius: r2,
            },
        ) => circle_circle(*c1, *r1, *c2, *r2),
        (
            Bitmask {
                ox: ax,
                oy: ay,
                bits: a,
            },
            Bitmask {
                ox: bx,
                oy: by,
                bits: b,
            },
        ) => {
            if bitmasks_share_a_cell((*ax, *ay, a), (*bx, *by, b)) {
                -1.0
            } else {
                1.0
            }
        }
        (Bitmask { ox, oy, bits }, other) | (other, Bitmask { ox, oy, bits }) => {
            shape_bitmask(other, *ox, *oy, bits, reach)
        }
        (Rounded(pieces), other) | (other, Rounded(pieces)) => {
            let others = other.pieces().expect("bitmasks are handled above");
            pieces_distance(pieces, &others)
        }
    }
}

/// Signed distance between two unions of rounded convex pieces: the least over pairs of
/// pieces. Exact for a gap and for the yes/no question; an overlap's depth is that of the
/// deepest single pair, which may be less than the union's (a shape across the diagonal
/// between two triangles of a concave polygon), so the band it gives is never narrower
/// than the true one, only sometimes wider.
pub(crate) fn pieces_distance(a: &[Piece], b: &[Piece]) -> f64 {
    a.iter()
        .flat_map(|p| {
            b.iter()
                .map(move |q| rounded_rounded(&p.hull, p.radius, &q.hull, q.radius))
        })
        .fold(f64::INFINITY, f64::min)
}

/// Is some world cell set in both bitmasks? Pure integer work over the overlap of their
/// set-cell bounds, so cells that only share an edge or corner never count.
pub(crate) fn bitmasks_share_a_cell(a: (i64, i64, &Bitmask), b: (i64, i64, &Bitmask)) -> bool {
    let (Some(ab), Some(bb)) = (a.2.set_bounds, b.2.set_bounds) else {
        return false;
    };
    let x0 = (a.0 + ab.0).max(b.0 + bb.0);
    let y0 = (a.1 + ab.1).max(b.1 + bb.1);
    let x1 = (a.0 + ab.2).min(b.0 + bb.2);
    let y1 = (a.1 + ab.3).min(b.1 + bb.3);
    (y0..y1).any(|wy| {
        (x0..x1).any(|wx| a.2.is_set(wx - a.0, wy - a.1) && b.2.is_set(wx - b.0, wy - b.1))
    })
}

/// Signed distance from a polygon or circle to the union of a bitmask's set cells: the
/// minimum over the cells near the shape, each cell being a closed unit square. Stops as
/// soon as one cell is penetrated deeper than the band (any such value will do). Only the
/// cells within `reach` of the shape are visited; with none, the answer is infinite,
/// which classifies the pair as an answer beyond the reach would.
pub(crate) fn shape_bitmask(other: &Placed, ox: i64, oy: i64, bits: &Bitmask, reach: f64) -> f64 {
    let (Some(bounds), Some(near)) = (bits.set_bounds, other.aabb()) else {
        return f64::INFINITY;
    };
    // Cell c spans [ox + c, ox + c + 1]; keep those meeting the grown box of the shape.
    // (An infinite reach saturates the casts below, and the clamps keep every set cell.)
    let lo_x = near.min.x - reach - ox as f64;
    let hi_x = near.max.x + reach - ox as f64;
    let lo_y = near.min.y - reach - oy as f64;
    let hi_y = near.max.y + reach - oy as f64;
    let c0 = ((lo_x - 1.0).ceil() as i64).max(bounds.0);
    let c1 = (hi_x.floor() as i64).min(bounds.2 - 1);
    let r0 = ((lo_y - 1.0).ceil() as i64).max(bounds.1);
    let r1 = (hi_y.floor() as i64).min(bounds.3 - 1);

    // Blocks of cells first: a block's distance to the shape bounds each of its cells'
    // from below (a cell lies inside its block), so blocks farther than the reach or than
    // the best cell so far are skipped whole, nearest first. Without this a polygon
    // 29000 units wide whose box covers a 8191 x 512 mask measured every set cell against
    // its 255 edges: four minutes for one pair, past the fuzz's bound.
    let distance_to = |square: &[V]| match other {
        Placed::Polygon(p) => polygon_polygon(p, square),
        Placed::Circle { centre, radius } => circle_polygon(*centre, *radius, square),
        Placed::Rounded(pieces) => pieces_distance(
            pieces,
            &[Piece {
                hull: square.to_vec(),
                radius: 0.0,
            }],
        ),
        Placed::Bitmask { .. } => unreachable!("bitmask pairs are handled apart"),
    };
    let rect = |x0: i64, y0: i64, x1: i64, y1: i64| {
        let (x0, y0, x1, y1) = (
            (ox + x0) as f64,
            (oy + y0) as f64,
            (ox + x1) as f64,
            (oy + y1) as f64,
        );
        [
            V::new(x0, y0),
            V::new(x1, y0),
            V::new(x1, y1),
            V::new(x0, y1),
        ]
    };
    const BLOCK: i64 = 32;
    let mut blocks = Vec::new();
    let mut br = r0;
    while br <= r1 {
        let mut bc = c0;
        while bc <= c1 {
            let (ec, er) = ((bc + BLOCK - 1).min(c1), (br + BLOCK - 1).min(r1));
            blocks.push((distance_to(&rect(bc, br, ec + 1, er + 1)), bc, br, ec, er));
            bc += BLOCK;
        }
        br += BLOCK;
    }
    blocks.sort_by(|a, b| a.0.total_cmp(&b.0));

    let mut best = f64::INFINITY;
    for (block_distance, bc, br, ec, er) in blocks {
        if block_distance > reach || block_distance > best {
            break;
        }
        for r in br..=er {
            for c in bc..=ec {
                if !bits.is_set(c, r) {
                    continue;
                }
                best = best.min(distance_to(&rect(c, r, c + 1, r + 1)));
                if best < -BAND {
                    return best;
                }
            }
        }
    }
    best
}

/// Broad phase: sort the boxes grown by `margin` by their left edge and sweep, calling
/// `visit(i, j)` with i < j for every pair whose grown boxes overlap. Bodies without a box
/// are skipped.
pub(crate) fn sweep_and_prune(
    boxes: &[Option<Aabb>],
    margin: f64,
    mut visit: impl FnMut(usize, usize),
) {
    let grown: Vec<(usize, Aabb)> = boxes
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            b.map(|b| {
                let m = V::new(margin, margin);
                (
                    i,
                    Aabb {
                        min: b.min.sub(m),
                        max: b.max.add(m),
                    },
                )
            })
        })
        .collect();
    let mut order: Vec<usize> = (0..grown.len()).collect();
    order.sort_by(|&a, &b| grown[a].1.min.x.total_cmp(&grown[b].1.min.x));
    for (k, &a) in order.iter().enumerate() {
        let (ia, ba) = grown[a];
        for &b in &order[k + 1..] {
            let (ib, bb) = grown[b];
            if bb.min.x > ba.max.x {
                break;
            }
            if bb.min.y <= ba.max.y && ba.min.y <= bb.max.y {
                visit(ia.min(ib), ia.max(ib));
            }
        }
    }
}
