//! The library's shapes as parry2d shapes, made once per collider and shared by both
//! baselines: the [`parry2d`](super::parry) one uses them directly, the
//! [`rapier2d`](super::rapier) one hands them to its colliders (rapier2d is built on the
//! same parry2d, so its colliders take these shapes as they are).
//!
//! A polygon becomes a `ConvexPolygon` with the library's counter-clockwise vertices
//! (unmodified, so no vertex is merged away), a circle a `Ball`. A bitmask becomes a
//! `Compound` of one `Cuboid` per run of set cells in a row ([`cell_runs`]), a run that
//! repeats the row above extending that run's cuboid down instead ([`cell_rectangles`]):
//! fewer sub-shapes than one per cell, and no cleverer merging than a programmer would
//! write in a few lines (on the benchmark's noisy masks, few rows repeat: about 5% fewer
//! cuboids, and the frames were a few percent faster). Each cuboid is shrunk by [`CELL_INSET`] on every side, so that two
//! bitmasks whose cells only share an edge do not count as colliding (the format says
//! bitmasks collide when they share a cell); the inset is ten times inside the format's
//! 0.01 tolerance band.

use std::collections::HashMap;

use parry2d::math::{Pose, Vector};
use parry2d::shape::{Ball, ConvexPolygon, Cuboid, SharedShape};

use crate::error::Error;
use crate::input::library::ShapeLibrary;
use crate::input::shapes::ShapeKind;
use crate::layout::packed::PackedShape;

/// How far each bitmask cell's cuboid is pulled in from the cell's edges, in world units.
pub const CELL_INSET: f32 = 0.001;

/// A baseline's own failure, as the library's error for backends outside it.
pub(super) fn baseline_error(backend: &'static str, message: String) -> Error {
    Error::Backend { backend, message }
}

/// One parry shape per library shape, in the library's order; `None` for a bitmask with
/// no set cell, which touches nothing. `backend` names the baseline in errors.
pub(super) fn parry_shapes(
    library: &ShapeLibrary,
    backend: &'static str,
) -> Result<Vec<Option<SharedShape>>, Error> {
    if library.parts.is_some() {
        return Err(baseline_error(
            backend,
            "concave and compound shapes are not given to the baselines".to_string(),
        ));
    }
    library
        .shapes
        .iter()
        .enumerate()
        .map(|(index, shape)| parry_shape(library, index, shape, backend))
        .collect()
}

/// The parry shape of library shape `index`.
fn parry_shape(
    library: &ShapeLibrary,
    index: usize,
    shape: &PackedShape,
    backend: &'static str,
) -> Result<Option<SharedShape>, Error> {
    match shape.shape_kind() {
        ShapeKind::Polygon => {
            let first = shape.first as usize;
            let vertices = library
                .polygon_vertices
                .get(first..first + shape.count as usize)
                .ok_or_else(|| {
                    baseline_error(backend, format!("shape {index}: vertices out of range"))
                })?;
            let points = vertices
                .iter()
                .map(|v| Vector::new(v.position[0], v.position[1]))
                .collect();
            let polygon =
                ConvexPolygon::from_convex_polyline_unmodified(points).ok_or_else(|| {
                    baseline_error(
                        backend,
                        format!("shape {index}: parry2d refuses the polygon (a degenerate edge)"),
                    )
                })?;
            Ok(Some(SharedShape::new(polygon)))
        }
        ShapeKind::Circle => Ok(Some(SharedShape::new(Ball::new(shape.radius)))),
        ShapeKind::Capsule => {
            let first = shape.first as usize;
            let ends = library
                .polygon_vertices
                .get(first..first + 2)
                .ok_or_else(|| {
                    baseline_error(backend, format!("shape {index}: capsule ends out of range"))
                })?;
            let end = |k: usize| Vector::new(ends[k].position[0], ends[k].position[1]);
            Ok(Some(SharedShape::capsule(end(0), end(1), shape.radius)))
        }
        ShapeKind::Bitmask => {
            let runs = cell_runs(library, shape).ok_or_else(|| {
                baseline_error(
                    backend,
                    format!("shape {index}: bitmask words out of range"),
                )
            })?;
            Ok(bitmask_compound(&runs))
        }
    }
}

/// A run of set cells in one row of a bitmask: cells `start..end` of row `row`, which
/// cover `[start, end) × [row, row + 1)` in the shape's frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellRun {
    /// The row.
    pub row: u32,
    /// The first set cell of the run.
    pub start: u32,
    /// One past its last set cell.
    pub end: u32,
}

/// The runs of set cells of a bitmask, row by row, left to right; `None` when the
/// mask's words are not in the library.
pub fn cell_runs(library: &ShapeLibrary, mask: &PackedShape) -> Option<Vec<CellRun>> {
    let words_per_row = mask.words_per_row as usize;
    let first = mask.first as usize;
    let words = library
        .bitmask_words
        .get(first..first + words_per_row * mask.rows as usize)?;
    let is_set = |row: usize, column: usize| {
        words[row * words_per_row + column / 32] >> (column % 32) & 1 == 1
    };
    let width = mask.count as usize;
    let mut runs = Vec::new();
    for row in 0..mask.rows as usize {
        let mut column = 0;
        while column < width {
            if !is_set(row, column) {
                column += 1;
                continue;
            }
            let start = column;
            while column < width && is_set(row, column) {
                column += 1;
            }
            runs.push(CellRun {
                row: row as u32,
                start: start as u32,
                end: column as u32,
            });
        }
    }
    Some(runs)
}

/// The runs as rectangles: a run with the same columns as one in the row above extends
/// that one's rectangle down a row. Each rectangle is its first run and its row count.
pub fn cell_rectangles(runs: &[CellRun]) -> Vec<(CellRun, u32)> {
    let mut rectangles: Vec<(CellRun, u32)> = Vec::new();
    // The rectangles reaching the row before the current one, and the current one, by
    // their columns.
    let mut above: HashMap<(u32, u32), usize> = HashMap::new();
    let mut here: HashMap<(u32, u32), usize> = HashMap::new();
    let mut row = None;
    for run in runs {
        if row != Some(run.row) {
            above = std::mem::take(&mut here);
            if row.map(|r| r + 1) != Some(run.row) {
                above.clear();
            }
            row = Some(run.row);
        }
        let columns = (run.start, run.end);
        let index = match above.get(&columns) {
            Some(&index) => {
                rectangles[index].1 += 1;
                index
            }
            None => {
                rectangles.push((*run, 1));
                rectangles.len() - 1
            }
        };
        here.insert(columns, index);
    }
    rectangles
}

/// A compound of one cuboid per rectangle of runs ([`cell_rectangles`]), each inset by
/// [`CELL_INSET`]; `None` for no run.
fn bitmask_compound(runs: &[CellRun]) -> Option<SharedShape> {
    if runs.is_empty() {
        return None;
    }
    let cuboids = cell_rectangles(runs)
        .iter()
        .map(|(run, rows)| {
            let (start, end, row) = (run.start as f32, run.end as f32, run.row as f32);
            let rows = *rows as f32;
            let half = Vector::new((end - start) / 2.0 - CELL_INSET, rows / 2.0 - CELL_INSET);
            let centre = Vector::new((start + end) / 2.0, row + rows / 2.0);
            (
                Pose::from_translation(centre),
                SharedShape::new(Cuboid::new(half)),
            )
        })
        .collect();
    Some(SharedShape::compound(cuboids))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_the_set_cells_of_each_row_left_to_right() {
        let mask = crate::Bitmask::from_rows(&["#.##", "....", "####"]).expect("mask");
        let library =
            ShapeLibrary::new(&[crate::Shape::Bitmask(mask)]).expect("a library of one mask");
        let runs = cell_runs(&library, &library.shapes[0]).expect("words in the library");
        let run = |row, start, end| CellRun { row, start, end };
        assert_eq!(runs, [run(0, 0, 1), run(0, 2, 4), run(2, 0, 4)]);
        assert_eq!(
            bitmask_compound(&runs).map(|s| s.as_compound().map(|c| c.shapes().len())),
            Some(Some(3))
        );
        assert!(bitmask_compound(&[]).is_none());
    }

    #[test]
    fn runs_repeated_in_consecutive_rows_make_one_rectangle() {
        let mask =
            crate::Bitmask::from_rows(&["##.#", "##.#", "#..#", "....", "#..#"]).expect("mask");
        let library =
            ShapeLibrary::new(&[crate::Shape::Bitmask(mask)]).expect("a library of one mask");
        let runs = cell_runs(&library, &library.shapes[0]).expect("words in the library");
        let run = |row, start, end| CellRun { row, start, end };
        assert_eq!(
            cell_rectangles(&runs),
            [
                (run(0, 0, 2), 2),
                (run(0, 3, 4), 3),
                (run(2, 0, 1), 1),
                (run(4, 0, 1), 1),
                (run(4, 3, 4), 1),
            ]
        );
        let compound = bitmask_compound(&runs).expect("a compound");
        let aabb = compound.compute_local_aabb();
        assert!(
            (aabb.mins.x - CELL_INSET).abs() < 1e-6
                && (aabb.maxs.y - (5.0 - CELL_INSET)).abs() < 1e-6
        );
    }
}
