//! Bodies whose shapes are concave or compound: each is handed to the stages as one body
//! a convex part ([`ShapeLibrary::expand`]), and the answers about parts are turned back
//! into answers about bodies ([`Expansion`]): a pair of bodies collides when any of
//! their parts do (reported once, its time of impact the earliest of its parts'), a
//! query meets a body when it meets any part, and a contact is given per pair of
//! touching parts, numbered in the shape's order of parts.
//!
//! Parts of one body are never a pair. A library without concave or compound shapes
//! expands nothing: its bodies go to the stages as they are.

use rayon::prelude::*;

use crate::answer::contact::{Contact, ContactKind};
use crate::answer::motion::SweptPair;
use crate::answer::pair::Pair;
use crate::answer::query::QueryAnswers;
use crate::cpu::stretches::split_at_starts;
use crate::error::{Error, Location, SceneError};
use crate::input::body::Body;
use crate::input::library::{Parts, ShapeLibrary};

/// Bodies placed per parallel task.
const CHUNK: usize = 1024;

/// The bodies of the stages for one frame of a library with concave or compound
/// shapes, and for each, the caller's body it is a part of and the part's number.
#[derive(Debug, Clone, Default)]
pub struct Expansion {
    /// One body a part, the parts of each body together and the bodies in order.
    pub bodies: Vec<Body>,
    /// The caller's body each is a part of.
    owner: Vec<u32>,
    /// The part's number in its shape's parts.
    part: Vec<u32>,
    /// Whether the caller's body is concave or compound (its contacts name parts).
    in_parts: Vec<bool>,
    /// The caller's body `k`'s parts are `bodies[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    /// The caller's body's shape.
    shapes: Vec<u32>,
}

impl ShapeLibrary {
    /// The bodies of the stages for `bodies`, checked first as the caller's bodies;
    /// `None` when the library has no concave or compound shape, whose bodies go to the
    /// stages as they are (and are checked there).
    pub(crate) fn expand(&self, bodies: &[Body]) -> Result<Option<Expansion>, SceneError> {
        let mut expansion = Expansion::default();
        Ok(self
            .expand_into(bodies, &mut expansion)?
            .then_some(expansion))
    }

    /// [`Self::expand`] into `expansion`, reusing its memory (a frame of concave 10^4
    /// places 70,000 parts); false, leaving it alone, when the library has no concave
    /// or compound shape.
    pub(crate) fn expand_into(
        &self,
        bodies: &[Body],
        expansion: &mut Expansion,
    ) -> Result<bool, SceneError> {
        let Some(parts) = &self.parts else {
            return Ok(false);
        };
        let e = expansion;
        // Which parts are whose changes only with the bodies' shapes, most frames not.
        let same_shapes = e.shapes.len() == bodies.len()
            && e.shapes.iter().zip(bodies).all(|(&shape, body)| shape == body.shape);
        if !same_shapes {
            e.index(parts, bodies)?;
        }
        e.bodies
            .resize(e.part.len(), Body::new(0, glam::Vec2::ZERO));
        // Each run of bodies places its parts into its own stretch of the list, on all
        // cores: one loop took a sixth of the cpu backend's frame on concave 10^4.
        let starts = (0..bodies.len())
            .step_by(CHUNK)
            .map(|first| e.starts[first] as usize);
        bodies
            .par_chunks(CHUNK)
            .zip(split_at_starts(&mut e.bodies, starts))
            .enumerate()
            .map(|(c, (chunk, placed))| {
                let mut next = 0;
                chunk.iter().enumerate().try_for_each(|(k, body)| {
                    self.place_checked_parts(parts, c * CHUNK + k, body, |p| {
                        placed[next] = p;
                        next += 1;
                    })
                })
            })
            // The first bad body by index is named, as one loop would name it.
            .find_first(Result::is_err)
            .unwrap_or(Ok(()))?;
        Ok(true)
    }
}

impl Expansion {
    /// Where each of `bodies`' parts go, whose they are and their numbers; a shape out
    /// of range has none here, and is refused when the parts are placed. Until it is
    /// done, and when it fails, `shapes` is empty, so nothing is reused half made.
    fn index(&mut self, parts: &Parts, bodies: &[Body]) -> Result<(), SceneError> {
        self.shapes.clear();
        self.starts.clear();
        self.starts.push(0);
        let mut total = 0u32;
        for (index, body) in bodies.iter().enumerate() {
            let count = parts.ranges.get(body.shape as usize).map_or(0, |r| r.1);
            total = total.checked_add(count).ok_or_else(|| {
                SceneError::new(
                    Location::Body(index),
                    "shape",
                    format!("the frame's bodies have more than {} parts in all", u32::MAX),
                )
            })?;
            self.starts.push(total);
        }
        self.owner.clear();
        self.part.clear();
        for (index, own) in self.starts.windows(2).enumerate() {
            self.owner
                .extend(std::iter::repeat_n(index as u32, (own[1] - own[0]) as usize));
            self.part.extend(0..own[1] - own[0]);
        }
        self.in_parts.clear();
        self.in_parts.extend(bodies.iter().map(|b| {
            parts
                .in_parts
                .get(b.shape as usize)
                .copied()
                .unwrap_or(false)
        }));
        self.shapes.extend(bodies.iter().map(|b| b.shape));
        Ok(())
    }
}

impl Expansion {
    /// How many bodies the caller gave.
    pub fn owners(&self) -> usize {
        self.shapes.len()
    }

    /// The index into [`Self::bodies`] of the caller's body `k`'s first part; for `k`
    /// the number of bodies, the number of parts.
    pub fn first_part(&self, k: usize) -> usize {
        self.starts[k] as usize
    }

    /// The caller's body `k`'s parts, as indices into [`Self::bodies`].
    pub fn parts_of(&self, k: usize) -> std::ops::Range<usize> {
        self.starts[k] as usize..self.starts[k + 1] as usize
    }

    /// The caller's body each of [`Self::bodies`] is a part of.
    pub fn part_owners(&self) -> &[u32] {
        &self.owner
    }

    /// The caller's body `k`'s shape.
    pub fn shape_of(&self, k: usize) -> u32 {
        self.shapes[k]
    }

    /// A pair of parts as a pair of bodies `[i, j]` with `i < j`, and the parts in that
    /// order; `None` for two parts of one body.
    fn owner_pair(&self, pair: Pair) -> Option<(Pair, [u32; 2], bool)> {
        let (p, q) = (pair[0] as usize, pair[1] as usize);
        let (i, j) = (self.owner[p], self.owner[q]);
        match i.cmp(&j) {
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Less => Some(([i, j], [self.part[p], self.part[q]], false)),
            std::cmp::Ordering::Greater => Some(([j, i], [self.part[q], self.part[p]], true)),
        }
    }

    /// The pairs of bodies that some of their parts' pairs make, ascending, each once.
    pub fn pairs(&self, part_pairs: Vec<Pair>) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = part_pairs
            .into_iter()
            .filter_map(|pair| self.owner_pair(pair).map(|(owners, _, _)| owners))
            .collect();
        crate::answer::pair_sort::sort_pairs(&mut pairs);
        pairs.dedup();
        pairs
    }

    /// The swept pairs of bodies, each at the earliest time of its parts' pairs.
    pub fn swept_pairs(&self, part_pairs: Vec<SweptPair>) -> Vec<SweptPair> {
        let mut pairs: Vec<SweptPair> = part_pairs
            .into_iter()
            .filter_map(|swept| {
                self.owner_pair(swept.pair).map(|(pair, _, _)| SweptPair {
                    pair,
                    toi: swept.toi,
                })
            })
            .collect();
        pairs.sort_unstable_by(|a, b| a.pair.cmp(&b.pair).then(a.toi.total_cmp(&b.toi)));
        pairs.dedup_by(|later, first| later.pair == first.pair);
        pairs
    }

    /// The contacts of the bodies' pairs, one per pair of touching parts, sorted by pair
    /// and then by parts; a normal turned round where the parts' pair was the other way.
    /// A pair of two convex bodies keeps its one contact, without parts.
    pub fn contacts(&self, part_contacts: Vec<Contact>) -> Vec<Contact> {
        let mut contacts: Vec<Contact> = part_contacts
            .into_iter()
            .filter_map(|contact| {
                let (pair, parts, flipped) = self.owner_pair(contact.pair)?;
                let kind = match contact.kind {
                    ContactKind::Penetration { normal, depth } if flipped => {
                        ContactKind::Penetration {
                            normal: -normal,
                            depth,
                        }
                    }
                    kind => kind,
                };
                let named = self.in_parts[pair[0] as usize] || self.in_parts[pair[1] as usize];
                Some(Contact {
                    pair,
                    parts: named.then_some(parts),
                    kind,
                })
            })
            .collect();
        contacts.sort_by_key(|c| (c.pair, c.parts));
        contacts
    }

    /// The answers about parts as answers about bodies: a ray's hit names the body of
    /// the part it meets first (the lowest body on a tie, whose parts come first), a
    /// point's or box's list the bodies of the parts it meets, ascending, each once.
    pub fn answers(&self, mut answers: QueryAnswers) -> QueryAnswers {
        for hit in answers.rays.iter_mut().flatten() {
            hit.body = self.owner[hit.body as usize];
        }
        for list in answers.points.iter_mut().chain(answers.boxes.iter_mut()) {
            for body in list.iter_mut() {
                *body = self.owner[*body as usize];
            }
            list.sort_unstable();
            list.dedup();
        }
        answers
    }
}

/// Runs `stage` on the bodies of the stages: `bodies` themselves when `expansion` is
/// `None`, else the expansion's (handed to `stage` too, for a backend whose broad phase
/// looks for pairs of the caller's bodies first), whose answer `back` turns into the
/// bodies'.
pub fn run<T>(
    expansion: Option<&Expansion>,
    bodies: &[Body],
    stage: impl FnOnce(&[Body], Option<&Expansion>) -> Result<T, Error>,
    back: impl FnOnce(&Expansion, T) -> T,
) -> Result<T, Error> {
    match expansion {
        None => stage(bodies, None),
        Some(expansion) => Ok(back(expansion, stage(&expansion.bodies, Some(expansion))?)),
    }
}

/// The four answers of a [`crate::Collider`] (pairs, contacts, queries, swept pairs),
/// each through the library's parts ([`run`]), for a backend whose inherent
/// `stage_pairs`, `stage_contacts`, `stage_query` and `stage_swept_pairs` answer for the
/// bodies of the stages, whose `library()` is its shape library and whose field
/// `expansion` an [`Expansion`] kept for the next frame. Written once here so that no
/// backend can forget to turn an answer about parts into one about bodies.
macro_rules! answers_through_parts {
    // One answer: the bodies expanded into the collider's `expansion` (its memory reused
    // frame after frame), `stage` run, its answer brought back by `back`.
    (@through $self:ident, $bodies:ident, $stage:expr, $back:path) => {{
        let mut expansion = std::mem::take(&mut $self.expansion);
        let answer = $self
            .library()
            .expand_into($bodies, &mut expansion)
            .map_err(Error::from)
            .and_then(|expanded| {
                $crate::answer::parts::run(expanded.then_some(&expansion), $bodies, $stage, $back)
            });
        $self.expansion = expansion;
        answer
    }};
    () => {
        fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
            $crate::answer::parts::answers_through_parts!(@through self, bodies,
                |b, e| self.stage_pairs(b, e), $crate::answer::parts::Expansion::pairs)
        }

        fn find_contacts(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
            $crate::answer::parts::answers_through_parts!(@through self, bodies,
                |b, e| self.stage_contacts(b, e), $crate::answer::parts::Expansion::contacts)
        }

        fn query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
            batch.validate()?;
            $crate::answer::parts::answers_through_parts!(@through self, bodies,
                |b, _| self.stage_query(b, batch), $crate::answer::parts::Expansion::answers)
        }

        fn find_swept_pairs(&mut self, bodies: &[Body]) -> Result<Vec<SweptPair>, Error> {
            $crate::answer::parts::answers_through_parts!(@through self, bodies,
                |b, e| self.stage_swept_pairs(b, e), $crate::answer::parts::Expansion::swept_pairs)
        }
    };
}
pub(crate) use answers_through_parts;

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::error::Location;
    use crate::input::shapes::{Circle, Compound, Concave, Part, Shape};

    /// A circle, a U-shaped outline and a compound of both, turned and moved.
    fn library() -> ShapeLibrary {
        let u = [
            [0.0, 0.0],
            [3.0, 0.0],
            [3.0, 3.0],
            [2.0, 3.0],
            [2.0, 1.0],
            [1.0, 1.0],
            [1.0, 3.0],
            [0.0, 3.0],
        ];
        let parts = vec![
            Part::new(0).at(Vec2::new(4.0, -1.0)),
            Part::new(1).at(Vec2::new(-2.0, 0.5)).turned(0.7),
        ];
        ShapeLibrary::new(&[
            Shape::Circle(Circle::new(1.0)),
            Shape::Concave(Concave::new(u.map(Vec2::from).to_vec())),
            Shape::Compound(Compound::new(parts)),
        ])
        .unwrap()
    }

    /// `count` bodies of every shape, at scattered places and angles.
    fn bodies(count: usize) -> Vec<Body> {
        (0..count)
            .map(|k| {
                let x = (k as f32 * 37.3) % 2000.0 - 1000.0;
                Body::new((k % 3) as u32, Vec2::new(x, k as f32 * 0.25))
                    .with_angle(k as f32 * 0.37)
            })
            .collect()
    }

    #[test]
    fn parts_placed_on_all_cores_are_those_one_loop_places() {
        let library = library();
        let parts = library.parts.as_ref().unwrap();
        let mut expansion = Expansion::default();
        // Larger then smaller frames into the same memory: nothing of the last stays.
        // Then as many bodies of other shapes, the same again (which reuses the parts'
        // places of the frame before), and the first shapes back.
        let frames = [(5000, 0), (2500, 0), (1, 0), (0, 0), (3100, 0), (3100, 1), (3100, 1), (3100, 0)];
        for (count, turn) in frames {
            let mut bodies = bodies(count);
            for body in &mut bodies {
                body.shape = (body.shape + turn) % 3;
            }
            assert!(library.expand_into(&bodies, &mut expansion).unwrap());
            let mut one_loop = Vec::new();
            for (index, body) in bodies.iter().enumerate() {
                let before = one_loop.len();
                library
                    .place_checked_parts(parts, index, body, |p| one_loop.push(p))
                    .unwrap();
                assert_eq!(expansion.parts_of(index), before..one_loop.len());
                assert_eq!(expansion.shape_of(index), body.shape);
                for (number, p) in expansion.parts_of(index).enumerate() {
                    assert_eq!(expansion.owner[p], index as u32);
                    assert_eq!(expansion.part[p], number as u32);
                }
            }
            assert_eq!(expansion.bodies, one_loop);
            assert_eq!(expansion.owners(), count);
        }
        // The compound's bodies have its circle and the U's pieces.
        assert_eq!(expansion.parts_of(2).len(), 1 + library.parts(1).len());
    }

    #[test]
    fn the_first_bad_body_by_index_is_named_whichever_run_of_bodies_it_is_in() {
        let library = library();
        for (early, late) in [(1100, 2900), (2900, 1100)] {
            let mut bodies = bodies(3000);
            bodies[early].position.x = f32::NAN;
            bodies[late].shape = 99;
            let error = library.expand(&bodies).unwrap_err();
            assert_eq!(error.location, Location::Body(early.min(late)), "{error}");
            let field = if early < late { "x" } else { "shape" };
            assert_eq!(error.field, field, "{error}");
        }
    }
}
