//! What a frame or a query returns, and the [`Collider`](collider::Collider) trait that
//! returns it; both backends produce these types.

pub mod collider;
pub mod contact;
pub mod motion;
pub mod pair;
internal_mods!(pair_sort, parts);
pub mod query;
pub mod touch;
