//! A third baseline: the same scenes answered by [Box2D](https://box2d.org) v3 through the
//! `boxdd` bindings (Box2D's C sources built with the crate), set up the way Box2D's
//! documentation has a game learn which shapes overlap without any response: sensors,
//! behind the crate's [`Collider`] trait so its pairs are compared with the other
//! backends'.
//!
//! What is kept across frames: one Box2D world with a kinematic body per body, moved
//! each frame, and the set of overlapping pairs, brought up to date from the sensor
//! events of each step. Each frame:
//! 1. a body that moved is given its new position and angle as its target
//!    (`Body::set_target_transform`, the documented way to move a kinematic body: the
//!    velocity that reaches the target in one step), and one that stopped has its
//!    velocity set to zero; a body that jumped farther than `JUMP` or turned more than
//!    `TURN` (a bullet wrapping at the world's edge) is teleported there
//!    (`Body::set_position_and_rotation`) instead, as Box2D limits a step's motion. Its
//!    shapes' filters are set where its filter changed; a body new to the world is
//!    created, one whose shape changed is made anew, one gone is destroyed;
//! 2. `World::step` with a time step of 1/60 s and 4 sub-steps, the values Box2D's
//!    documentation recommends, which moves the bodies to their targets (within f32
//!    rounding: about 0.001 at 10^4 units from the origin, a tenth of the format's
//!    band). At its end Box2D tests every sensor against the shapes its box meets in
//!    the broad phase's trees, exactly (a distance below `10 * FLT_EPSILON`), and reports
//!    the overlaps that began and ended;
//! 3. each begun overlap adds one to its pair of bodies, each ended one takes one away,
//!    and the pairs with a count are the frame's, sorted. After a step that followed the
//!    destruction of a body or shape, whose ended overlaps name shapes that no longer
//!    exist, the set is read again from every sensor's overlaps instead.
//!
//! Every shape is a sensor with sensor events on, so it both looks for overlaps and is
//! found. Box2D therefore tests each pair from both sides, and a sensor does not meet the
//! shapes of its own body. A sensor detects other sensors in the Box2D revision boxdd
//! 0.6 builds, which this set-up needs. The filter is Box2D's category and mask bits with
//! group 0: Box2D's rule `(mask_a & category_b) != 0 && (category_a & mask_b) != 0` is
//! the format's two-way rule, each body's layer its category and its mask its mask.
//!
//! Shapes: circles; convex polygons of up to 8 vertices as Box2D polygons, larger ones as
//! a fan of such polygons on one body (Box2D holds at most 8 vertices a polygon); Box2D
//! welds vertices closer than about 0.02 and drops nearly collinear ones, within the
//! format's band almost always. Capsules as capsules, segments as segments. A bitmask as
//! one box per rectangle of set cells ([`super::shapes::cell_rectangles`]), each inset by
//! [`super::shapes::CELL_INSET`], as the other baselines have them.
//!
//! Threads: Box2D's own scheduler with as many workers as the run asks for
//! (`--threads`), or one per hardware thread.
//!
//! Swept pairs and queries are not answered ([`Error::Unsupported`]), as by the rapier2d
//! baseline.

use std::collections::{BTreeMap, HashMap};

use boxdd::shapes::{self, ShapeDef};
use boxdd::{
    BodyId, BodyType, Filter, Foundation, Rot, ShapeId, Transform, WorkerCount, World,
    WorldTransform,
};

use crate::answer::collider::{Collider, FrameStats, Pair};
use crate::error::Error;
use crate::input::body::Body;
use crate::input::library::ShapeLibrary;
use crate::input::shapes::ShapeKind;
use crate::layout::packed::PackedShape;

use super::shapes::{baseline_error, cell_rectangles, cell_runs, CELL_INSET};

/// The name this baseline gives in its errors.
const BACKEND: &str = "Box2D baseline";

/// Box2D's step: the time step and sub-steps its documentation recommends.
const TIME_STEP: f32 = 1.0 / 60.0;
const SUB_STEPS: i32 = 4;

/// How far a body may move in one frame, in world units, and be moved by velocity;
/// one that moves farther is teleported (see [`super::rapier::JUMP`], the same bound).
const JUMP: f32 = super::rapier::JUMP;

/// How far a body may turn in one frame, in radians, and be moved by velocity: Box2D
/// limits a step's rotation to a quarter of a half turn.
const TURN: f32 = 0.5;

/// The most bodies a Box2D world steps per worker thread: its solver hands each worker
/// at most 4 blocks of at most 65535 bodies, and aborts the process past that ("simulation
/// too big"), so a frame with more is refused instead.
const BODIES_PER_WORKER: usize = 4 * u16::MAX as usize;

/// The most vertices of a Box2D polygon.
const MAX_VERTICES: usize = shapes::MAX_POLYGON_VERTICES;

/// One Box2D shape of a library shape, in the shape's frame.
#[derive(Clone, Copy)]
enum Piece {
    Circle(shapes::Circle),
    Polygon(shapes::Polygon),
    Capsule(shapes::Capsule),
    Segment(shapes::Segment),
}

/// A body as this baseline last set it up.
#[derive(Debug, Clone)]
struct Slot {
    id: BodyId,
    /// The library shape it was made for.
    shape: u32,
    /// Its Box2D shapes.
    sensors: Vec<ShapeId>,
    /// Its pose and filter as last set.
    position: [f32; 2],
    angle: f32,
    filter: (u32, u32),
    /// Whether it was given a velocity for the last step.
    moving: bool,
}

/// Finds colliding pairs with a Box2D world of sensors, kept from one frame to the next.
pub struct Box2dCollider {
    library: ShapeLibrary,
    /// Each library shape's pieces; empty for a bitmask with no set cell, whose bodies
    /// get no Box2D body (they touch nothing).
    pieces: Vec<Vec<Piece>>,
    world: World,
    /// The body of each body of the last frame, by index.
    slots: Vec<Option<Slot>>,
    /// The body each sensor belongs to.
    owners: HashMap<ShapeId, u32>,
    /// The overlaps of sensors of each pair of bodies, counted from both sides.
    touching: BTreeMap<Pair, u32>,
    /// A body or shape was destroyed since the last step: the next step's ended
    /// overlaps may name shapes no longer in `owners`.
    reread: bool,
    /// Box2D's worker threads.
    workers: usize,
    last: FrameStats,
    max_pairs: u64,
}

impl std::fmt::Debug for Box2dCollider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Box2dCollider")
            .field("shapes", &self.pieces.len())
            .field("sensors", &self.owners.len())
            .field("last", &self.last)
            .finish()
    }
}

/// A failure of Box2D's, as this baseline reports it.
fn box2d_error(error: boxdd::Error) -> Error {
    baseline_error(BACKEND, error.to_string())
}

impl Box2dCollider {
    /// Converts the library's shapes to Box2D shapes, once, and opens a world with
    /// `threads` workers (Box2D's scheduler; 1 to 32); the bodies come with the first
    /// frame.
    pub fn new(library: ShapeLibrary, threads: usize) -> Result<Self, Error> {
        if library.parts.is_some() {
            return Err(baseline_error(
                BACKEND,
                "concave and compound shapes are not given to the baselines".to_string(),
            ));
        }
        let foundation = Foundation::initialize_default().map_err(box2d_error)?;
        let threads = threads.clamp(1, boxdd::B2_MAX_WORKERS as usize);
        let workers = WorkerCount::new(threads as u32).map_err(box2d_error)?;
        let definition = foundation
            .world_builder()
            .gravity([0.0, 0.0])
            .enable_sleep(false)
            // Below any motion moved by velocity (JUMP a step).
            .maximum_linear_speed(4.0 * JUMP / TIME_STEP)
            .worker_count(workers)
            .build()
            .map_err(box2d_error)?;
        let world = foundation.create_world(definition).map_err(box2d_error)?;
        let pieces = library
            .shapes
            .iter()
            .enumerate()
            .map(|(index, shape)| pieces(&library, index, shape))
            .collect::<Result<_, _>>()?;
        Ok(Box2dCollider {
            library,
            pieces,
            world,
            slots: Vec::new(),
            owners: HashMap::new(),
            touching: BTreeMap::new(),
            reread: false,
            workers: threads,
            last: FrameStats::default(),
            max_pairs: crate::answer::collider::DEFAULT_MAX_PAIRS,
        })
    }

    /// Destroys the body of `slot`, if it has one, with its shapes.
    fn remove(&mut self, slot: Option<Slot>) -> Result<(), Error> {
        if let Some(slot) = slot {
            for sensor in &slot.sensors {
                self.owners.remove(sensor);
            }
            self.world
                .body(slot.id)
                .and_then(|body| body.destroy())
                .map_err(box2d_error)?;
            self.reread = true;
        }
        Ok(())
    }

    /// A Box2D body for body `index`, its pieces sensors.
    fn create(&mut self, index: usize, body: &Body) -> Result<Slot, Error> {
        let definition = self
            .world
            .body_builder()
            .body_type(BodyType::Kinematic)
            .position(body.position.to_array())
            .angle(body.angle)
            .build()
            .map_err(box2d_error)?;
        let id = self.world.create_body(definition).map_err(box2d_error)?;
        let def = sensor_def(body.layer, body.mask)?;
        let mut handle = self.world.body(id).map_err(box2d_error)?;
        let mut sensors = Vec::new();
        for piece in &self.pieces[body.shape as usize] {
            let created = match piece {
                Piece::Circle(c) => handle.create_circle(&def, c),
                Piece::Polygon(p) => handle.create_polygon(&def, p),
                Piece::Capsule(c) => handle.create_capsule(&def, c),
                Piece::Segment(s) => handle.create_segment(&def, s),
            };
            sensors.push(created.map_err(box2d_error)?);
        }
        for &sensor in &sensors {
            self.owners.insert(sensor, index as u32);
        }
        Ok(Slot {
            id,
            shape: body.shape,
            sensors,
            position: body.position.to_array(),
            angle: body.angle,
            filter: (body.layer, body.mask),
            moving: false,
        })
    }

    /// Brings the world to this frame's bodies: a body made for a body new to the world
    /// or whose shape changed, moved where it moved, its filter set where it changed, and
    /// destroyed for bodies gone or without a shape.
    fn place(&mut self, bodies: &[Body]) -> Result<(), Error> {
        while self.slots.len() > bodies.len() {
            let slot = self.slots.pop().flatten();
            self.remove(slot)?;
        }
        self.slots.resize(bodies.len(), None);
        for (i, body) in bodies.iter().enumerate() {
            let has_pieces = !self.pieces[body.shape as usize].is_empty();
            let mut slot = match self.slots[i].take() {
                Some(slot) if has_pieces && slot.shape == body.shape => slot,
                other => {
                    self.remove(other)?;
                    if has_pieces {
                        self.slots[i] = Some(self.create(i, body)?);
                    }
                    continue;
                }
            };
            self.move_to(&mut slot, body)?;
            if slot.filter != (body.layer, body.mask) {
                let filter = filter(body.layer, body.mask);
                for &sensor in &slot.sensors {
                    self.world
                        .shape(sensor)
                        .and_then(|mut s| s.set_filter(filter))
                        .map_err(box2d_error)?;
                }
                slot.filter = (body.layer, body.mask);
            }
            self.slots[i] = Some(slot);
        }
        Ok(())
    }

    /// Moves the body of `slot` to `body`'s pose: by velocity over the next step, or by
    /// teleport where it jumped or turned too far; stops one that stopped.
    fn move_to(&mut self, slot: &mut Slot, body: &Body) -> Result<(), Error> {
        let position = body.position.to_array();
        let moved = slot.position != position || slot.angle.to_bits() != body.angle.to_bits();
        if !moved && !slot.moving {
            return Ok(());
        }
        let mut handle = self.world.body(slot.id).map_err(box2d_error)?;
        if !moved {
            // Where the last step left it, within rounding of its target.
            slot.moving = false;
            return handle
                .set_linear_velocity([0.0, 0.0])
                .and_then(|()| handle.set_angular_velocity(0.0))
                .map_err(box2d_error);
        }
        let distance = glam::Vec2::from(slot.position).distance(body.position);
        let turn = (body.angle - slot.angle).rem_euclid(std::f32::consts::TAU);
        let turn = turn.min(std::f32::consts::TAU - turn);
        if distance > JUMP || turn > TURN {
            handle
                .set_position_and_rotation(position, body.angle)
                .and_then(|()| handle.set_linear_velocity([0.0, 0.0]))
                .and_then(|()| handle.set_angular_velocity(0.0))
                .map_err(box2d_error)?;
            slot.moving = false;
        } else {
            let target = Rot::from_radians(body.angle)
                .and_then(|rotation| WorldTransform::new(position.into(), rotation))
                .map_err(box2d_error)?;
            handle
                .set_target_transform(target, TIME_STEP, true)
                .map_err(box2d_error)?;
            slot.moving = true;
        }
        (slot.position, slot.angle) = (position, body.angle);
        Ok(())
    }

    /// Steps the world and brings the overlapping pairs up to date.
    fn step(&mut self) -> Result<(), Error> {
        let done = self.world.step(TIME_STEP, SUB_STEPS).map_err(box2d_error)?;
        if !self.reread {
            let events = done.sensor_events().map_err(box2d_error)?;
            let owners = &self.owners;
            let pair_of = |sensor: &ShapeId, visitor: &ShapeId| -> Result<Pair, Error> {
                match (owners.get(sensor), owners.get(visitor)) {
                    (Some(&i), Some(&j)) => Ok([i.min(j), i.max(j)]),
                    _ => Err(baseline_error(
                        BACKEND,
                        "a sensor event names a shape of no body".to_string(),
                    )),
                }
            };
            for event in events.begin() {
                let pair = pair_of(&event.sensor_shape, &event.visitor_shape)?;
                *self.touching.entry(pair).or_insert(0) += 1;
            }
            for event in events.end() {
                let pair = pair_of(&event.sensor_shape, &event.visitor_shape)?;
                if let Some(count) = self.touching.get_mut(&pair) {
                    *count -= 1;
                    if *count == 0 {
                        self.touching.remove(&pair);
                    }
                }
            }
            return Ok(());
        }
        drop(done);
        self.touching.clear();
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            for &sensor in &slot.sensors {
                let visitors = self
                    .world
                    .shape(sensor)
                    .and_then(|s| s.sensor_overlaps())
                    .map_err(box2d_error)?;
                for visitor in visitors {
                    if let Some(&j) = self.owners.get(&visitor) {
                        let i = i as u32;
                        *self.touching.entry([i.min(j), i.max(j)]).or_insert(0) += 1;
                    }
                }
            }
        }
        self.reread = false;
        Ok(())
    }
}

/// A body's filter as Box2D's: its layer the category, its mask the mask, group 0.
fn filter(layer: u32, mask: u32) -> Filter {
    Filter {
        category_bits: layer as u64,
        mask_bits: mask as u64,
        group_index: 0,
    }
}

/// The definition of a body's sensors.
fn sensor_def(layer: u32, mask: u32) -> Result<ShapeDef, Error> {
    ShapeDef::builder()
        .sensor(true)
        .enable_sensor_events(true)
        .filter(filter(layer, mask))
        .build()
        .map_err(box2d_error)
}

/// Library shape `index` as Box2D shapes.
fn pieces(library: &ShapeLibrary, index: usize, shape: &PackedShape) -> Result<Vec<Piece>, Error> {
    let refused = |what: &str, error: boxdd::Error| {
        baseline_error(
            BACKEND,
            format!("shape {index}: Box2D refuses the {what}: {error}"),
        )
    };
    let vertices = |count: usize| {
        let first = shape.first as usize;
        library
            .polygon_vertices
            .get(first..first + count)
            .map(|v| v.iter().map(|v| v.position).collect::<Vec<[f32; 2]>>())
            .ok_or_else(|| baseline_error(BACKEND, format!("shape {index}: vertices out of range")))
    };
    Ok(match shape.shape_kind() {
        ShapeKind::Circle => vec![Piece::Circle(
            shapes::circle([0.0, 0.0], shape.radius).map_err(|e| refused("circle", e))?,
        )],
        ShapeKind::Polygon => fan(&vertices(shape.count as usize)?)
            .into_iter()
            .map(|points| {
                shapes::polygon_from_points(points, 0.0)
                    .map(Piece::Polygon)
                    .map_err(|e| refused("polygon", e))
            })
            .collect::<Result<_, _>>()?,
        ShapeKind::Capsule => {
            let ends = vertices(2)?;
            if shape.radius > 0.0 {
                vec![Piece::Capsule(
                    shapes::capsule(ends[0], ends[1], shape.radius)
                        .map_err(|e| refused("capsule", e))?,
                )]
            } else {
                vec![Piece::Segment(
                    shapes::segment(ends[0], ends[1]).map_err(|e| refused("segment", e))?,
                )]
            }
        }
        ShapeKind::Bitmask => {
            let runs = cell_runs(library, shape).ok_or_else(|| {
                baseline_error(
                    BACKEND,
                    format!("shape {index}: bitmask words out of range"),
                )
            })?;
            cell_rectangles(&runs)
                .into_iter()
                .map(|(run, rows)| {
                    let (width, height) = ((run.end - run.start) as f32, rows as f32);
                    let centre = [
                        run.start as f32 + width / 2.0,
                        run.row as f32 + height / 2.0,
                    ];
                    let at = Transform::from_pos_angle(centre, 0.0)
                        .map_err(|e| refused("bitmask cell", e))?;
                    shapes::offset_box_polygon(
                        width / 2.0 - CELL_INSET,
                        height / 2.0 - CELL_INSET,
                        at,
                    )
                    .map(Piece::Polygon)
                    .map_err(|e| refused("bitmask cell", e))
                })
                .collect::<Result<_, _>>()?
        }
    })
}

/// A convex polygon as convex polygons of at most [`MAX_VERTICES`] vertices that share
/// its first vertex (a fan), whose union it is.
fn fan(vertices: &[[f32; 2]]) -> Vec<Vec<[f32; 2]>> {
    if vertices.len() <= MAX_VERTICES {
        return vec![vertices.to_vec()];
    }
    let mut pieces = Vec::new();
    let mut start = 1;
    while start + 1 < vertices.len() {
        let end = (start + MAX_VERTICES - 1).min(vertices.len());
        let mut piece = vec![vertices[0]];
        piece.extend_from_slice(&vertices[start..end]);
        pieces.push(piece);
        start = end - 1;
    }
    pieces
}

impl Collider for Box2dCollider {
    fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
        self.library.check_bodies(bodies)?;
        crate::answer::motion::refuse_motion(&self.describe(), bodies)?;
        let most = BODIES_PER_WORKER * self.workers;
        if bodies.len() > most {
            return Err(crate::answer::motion::unsupported(
                &self.describe(),
                &format!(
                    "a frame of more than {most} bodies with {} worker threads (Box2D's \
                     solver steps at most {BODIES_PER_WORKER} a worker)",
                    self.workers
                ),
            ));
        }
        self.place(bodies)?;
        self.step()?;
        let found = self.touching.len() as u64;
        if found > self.max_pairs {
            return Err(Error::TooManyPairs {
                found,
                limit: self.max_pairs,
            });
        }
        self.last = FrameStats {
            candidates: None,
            stages: None,
            runs: None,
        };
        // In order already: the map's keys are sorted.
        Ok(self.touching.keys().copied().collect())
    }

    fn describe(&self) -> String {
        "box2d".to_string()
    }

    /// Checked after the step: Box2D's step has no early stop.
    fn set_max_pairs(&mut self, max: u64) {
        self.max_pairs = max;
    }

    fn last_frame(&self) -> FrameStats {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::bench::baseline_checks as checks;
    use glam::Vec2;

    /// On one worker, Box2D's serial path (the agreement check runs two).
    fn box2d(library: ShapeLibrary) -> Box2dCollider {
        Box2dCollider::new(library, 1).expect("Box2D shapes")
    }

    #[test]
    fn a_fan_covers_the_polygon_with_pieces_of_at_most_eight_vertices() {
        let polygon: Vec<[f32; 2]> = (0..16)
            .map(|k| {
                let a = k as f32 * std::f32::consts::TAU / 16.0;
                [a.cos(), a.sin()]
            })
            .collect();
        let pieces = fan(&polygon);
        assert!(pieces
            .iter()
            .all(|p| p.len() >= 3 && p.len() <= MAX_VERTICES));
        // Each piece starts at vertex 0 and goes on round the polygon from where the last
        // one ended: every edge of the polygon is an edge of one piece, and each of the
        // diagonals between consecutive pieces an edge of two.
        let mut next = 1;
        for piece in &pieces {
            assert_eq!(piece[0], polygon[0]);
            assert_eq!(piece[1], polygon[next]);
            next += piece.len() - 2;
        }
        assert_eq!(next, polygon.len() - 1);
        let edges: usize = pieces.iter().map(Vec::len).sum();
        assert_eq!(edges, polygon.len() + 2 * (pieces.len() - 1));
        assert_eq!(fan(&polygon[..8]), vec![polygon[..8].to_vec()]);
        assert_eq!(fan(&polygon[..9]).len(), 2);
    }

    #[test]
    fn agrees_with_the_cpu_frame_after_frame() {
        checks::agrees_with_the_cpu_frame_after_frame(&|library| {
            Box::new(Box2dCollider::new(library, 2).expect("Box2D shapes"))
        });
    }

    #[test]
    fn follows_bodies_that_come_go_and_change() {
        let mut box2d = box2d(checks::changing_library());
        checks::follows_bodies_that_come_go_and_change(&mut box2d);
        let bodies = box2d.slots.iter().flatten().count();
        assert_eq!(bodies, 2, "one Box2D body per body with a shape");
    }

    #[test]
    fn the_filter_must_agree_both_ways() {
        checks::the_filter_must_agree_both_ways(&mut box2d(checks::circle_library()));
    }

    #[test]
    fn too_many_pairs_are_refused_with_the_others_count() {
        checks::too_many_pairs_are_refused_with_the_others_count(&mut box2d(
            checks::circle_library(),
        ));
    }

    #[test]
    fn moving_bodies_and_swept_frames_are_refused_as_unsupported() {
        checks::moving_bodies_are_refused_as_unsupported(
            &mut box2d(checks::circle_library()),
            "box2d",
        );
    }

    /// A frame past what Box2D's solver steps on the world's workers is refused before
    /// Box2D sees it (Box2D would abort the process), and one at the limit is not.
    #[test]
    fn a_frame_too_large_for_box2d_is_refused_not_aborted() {
        let mut box2d = box2d(checks::circle_library());
        let mut bodies = vec![Body::new(0, Vec2::ZERO).with_filter(0, 0); BODIES_PER_WORKER + 1];
        let refused = box2d.find_pairs(&bodies).expect_err("too many bodies");
        assert!(matches!(refused, Error::Unsupported { .. }), "{refused}");
        assert!(refused.to_string().contains("262140"), "{refused}");
        bodies.truncate(2);
        bodies[1] = Body::new(0, Vec2::new(1.5, 0.0));
        bodies[0] = Body::new(0, Vec2::ZERO);
        assert_eq!(box2d.find_pairs(&bodies).expect("two bodies"), vec![[0, 1]]);
    }
}
