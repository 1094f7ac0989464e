//! Bodies whose shapes are concave or compound: each is handed to the stages as one body
//! a convex part ([`ShapeLibrary::expand`]), and the answers about parts are turned back
//! into answers about bodies ([`Expansion`]): a pair of bodies collides when any of
//! their parts do (reported once, its time of impact the earliest of its parts'), a
//! query meets a body when it meets any part, and a contact is given per pair of
//! touching parts, numbered in the shape's order of parts.
//!
//! Parts of one body are never a pair. A library without concave or compound shapes
//! expands nothing: its bodies go to the stages as they are.

use crate::answer::contact::{Contact, ContactKind};
use crate::answer::motion::SweptPair;
use crate::answer::pair::Pair;
use crate::answer::query::QueryAnswers;
use crate::error::{Error, SceneError};
use crate::input::body::Body;
use crate::input::library::{place_part, ShapeLibrary};

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
}

impl ShapeLibrary {
    /// The bodies of the stages for `bodies`, checked first as the caller's bodies;
    /// `None` when the library has no concave or compound shape, whose bodies go to the
    /// stages as they are (and are checked there).
    pub(crate) fn expand(&self, bodies: &[Body]) -> Result<Option<Expansion>, SceneError> {
        let Some(parts) = &self.parts else {
            return Ok(None);
        };
        self.check_bodies(bodies)?;
        let mut expansion = Expansion::default();
        for (index, body) in bodies.iter().enumerate() {
            let (first, count) = parts.ranges[body.shape as usize];
            expansion.in_parts.push(parts.in_parts[body.shape as usize]);
            for (k, place) in parts.list[first as usize..(first + count) as usize]
                .iter()
                .enumerate()
            {
                expansion.bodies.push(place_part(body, place));
                expansion.owner.push(index as u32);
                expansion.part.push(k as u32);
            }
        }
        Ok(Some(expansion))
    }
}

impl Expansion {
    /// A pair of parts as a pair of bodies `[i, j]` with `i < j`, and the parts in that
    /// order; `None` for two parts of one body.
    fn owners(&self, pair: Pair) -> Option<(Pair, [u32; 2], bool)> {
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
            .filter_map(|pair| self.owners(pair).map(|(owners, _, _)| owners))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// The swept pairs of bodies, each at the earliest time of its parts' pairs.
    pub fn swept_pairs(&self, part_pairs: Vec<SweptPair>) -> Vec<SweptPair> {
        let mut pairs: Vec<SweptPair> = part_pairs
            .into_iter()
            .filter_map(|swept| {
                self.owners(swept.pair).map(|(pair, _, _)| SweptPair {
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
                let (pair, parts, flipped) = self.owners(contact.pair)?;
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
/// `None`, else the expansion's, whose answer `back` turns into the bodies'.
pub fn run<T>(
    expansion: Option<Expansion>,
    bodies: &[Body],
    stage: impl FnOnce(&[Body]) -> Result<T, Error>,
    back: impl FnOnce(&Expansion, T) -> T,
) -> Result<T, Error> {
    match &expansion {
        None => stage(bodies),
        Some(expansion) => Ok(back(expansion, stage(&expansion.bodies)?)),
    }
}

/// The four answers of a [`crate::Collider`] (pairs, contacts, queries, swept pairs),
/// each through the library's parts ([`run`]), for a backend whose inherent
/// `stage_pairs`, `stage_contacts`, `stage_query` and `stage_swept_pairs` answer for the
/// bodies of the stages and whose `library()` is its shape library. Written once here so
/// that no backend can forget to turn an answer about parts into one about bodies.
macro_rules! answers_through_parts {
    () => {
        fn find_pairs(&mut self, bodies: &[Body]) -> Result<Vec<Pair>, Error> {
            let expansion = self.library().expand(bodies)?;
            $crate::answer::parts::run(
                expansion,
                bodies,
                |b| self.stage_pairs(b),
                $crate::answer::parts::Expansion::pairs,
            )
        }

        fn find_contacts(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
            let expansion = self.library().expand(bodies)?;
            $crate::answer::parts::run(
                expansion,
                bodies,
                |b| self.stage_contacts(b),
                $crate::answer::parts::Expansion::contacts,
            )
        }

        fn query(&mut self, bodies: &[Body], batch: &QueryBatch) -> Result<QueryAnswers, Error> {
            batch.validate()?;
            let expansion = self.library().expand(bodies)?;
            $crate::answer::parts::run(
                expansion,
                bodies,
                |b| self.stage_query(b, batch),
                $crate::answer::parts::Expansion::answers,
            )
        }

        fn find_swept_pairs(&mut self, bodies: &[Body]) -> Result<Vec<SweptPair>, Error> {
            let expansion = self.library().expand(bodies)?;
            $crate::answer::parts::run(
                expansion,
                bodies,
                |b| self.stage_swept_pairs(b),
                $crate::answer::parts::Expansion::swept_pairs,
            )
        }
    };
}
pub(crate) use answers_through_parts;
