//! The time budget that keeps a benchmark run to minutes on a slow machine: which sizes
//! a backend skips, and when a run stops measuring frames early.
//!
//! Sizes of a scene run smallest first. A backend stops at the first size whose median
//! frame exceeds [`FRAME_BUDGET`]: the larger sizes of that scene are dropped for it,
//! and the report says so. A size is also dropped, before it starts, when the smaller
//! sizes predict a frame over [`PREDICTION_LIMIT`] (a power law fitted to the last two
//! sizes, exponent between 1 and 2; quadratic from a single size), so that one frame of
//! an all-pairs backend at a million bodies cannot take the run hostage.

use std::time::Duration;

/// A backend whose median frame at some size exceeds this is not run at larger sizes.
pub const FRAME_BUDGET: Duration = Duration::from_secs(2);

/// A size whose predicted frame exceeds this is not run at all.
pub const PREDICTION_LIMIT: Duration = Duration::from_secs(10);

/// Once the measured frames of one run add up to this, it stops measuring (after at
/// least one frame): large sizes get fewer frames than asked for, and `frames` in the
/// report says how many.
pub const RUN_TIME_CAP: Duration = Duration::from_secs(10);

/// Median frame times a backend reached on the sizes of one scene so far.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// `(bodies, median frame in seconds)`, in the order run (ascending bodies).
    points: Vec<(usize, f64)>,
}

impl History {
    /// Records the median frame of a size.
    pub fn record(&mut self, bodies: usize, median: Duration) {
        self.points.push((bodies, median.as_secs_f64()));
    }

    /// Why `bodies` should not run, or `None` when it should.
    pub fn reason_to_drop(&self, bodies: usize) -> Option<String> {
        if let Some(&(size, seconds)) = self
            .points
            .iter()
            .find(|&&(_, s)| s > FRAME_BUDGET.as_secs_f64())
        {
            return Some(format!(
                "{size} bodies took {} a frame, over the {} budget",
                seconds_text(seconds),
                seconds_text(FRAME_BUDGET.as_secs_f64())
            ));
        }
        let predicted = self.predict(bodies)?;
        (predicted > PREDICTION_LIMIT.as_secs_f64()).then(|| {
            format!(
                "predicted {} a frame from the smaller sizes, over the {} limit",
                seconds_text(predicted),
                seconds_text(PREDICTION_LIMIT.as_secs_f64())
            )
        })
    }

    /// The frame time `bodies` would take, extrapolated from the largest sizes run.
    pub fn predict(&self, bodies: usize) -> Option<f64> {
        let &(n1, t1) = self.points.last()?;
        if bodies <= n1 {
            return Some(t1);
        }
        let exponent = match self.points.len() {
            0 | 1 => 2.0,
            len => {
                let (n0, t0) = self.points[len - 2];
                if n0 >= n1 || t0 <= 0.0 || t1 <= 0.0 {
                    2.0
                } else {
                    ((t1 / t0).ln() / (n1 as f64 / n0 as f64).ln()).clamp(1.0, 2.0)
                }
            }
        };
        Some(t1 * (bodies as f64 / n1 as f64).powf(exponent))
    }
}

/// `1.5 s`, `250 ms`.
fn seconds_text(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{:.0} ms", seconds * 1e3)
    }
}

/// The median of some durations in milliseconds (the mean of the middle two for an even
/// count); `None` when there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn nothing_run_drops_nothing() {
        assert_eq!(History::default().reason_to_drop(1_000_000), None);
    }

    #[test]
    fn a_frame_over_budget_drops_the_larger_sizes() {
        let mut h = History::default();
        h.record(1_000, ms(10));
        h.record(10_000, ms(2_500));
        let reason = h.reason_to_drop(100_000).expect("dropped");
        assert!(reason.contains("10000 bodies took 2.5 s"), "{reason}");
    }

    #[test]
    fn quadratic_growth_is_predicted_and_dropped_early() {
        let mut h = History::default();
        h.record(1_000, ms(2));
        h.record(10_000, ms(200)); // exponent 2
        let predicted = h.predict(100_000).expect("prediction");
        assert!((predicted - 20.0).abs() < 1e-6, "{predicted}");
        assert!(h
            .reason_to_drop(100_000)
            .expect("dropped")
            .contains("predicted"));
    }

    #[test]
    fn linear_growth_keeps_running() {
        let mut h = History::default();
        h.record(1_000, ms(1));
        h.record(10_000, ms(10));
        assert!((h.predict(1_000_000).expect("prediction") - 1.0).abs() < 1e-6);
        assert_eq!(h.reason_to_drop(1_000_000), None);
    }

    #[test]
    fn one_size_predicts_quadratically() {
        let mut h = History::default();
        h.record(1_000, ms(1));
        assert!((h.predict(10_000).expect("prediction") - 0.1).abs() < 1e-9);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }
}
