//! Where the broad phase puts a crowded frame's candidates: a bin for each kind pair,
//! laid out in the candidate buffer from the counts of an earlier frame, so that each
//! kind pair's kernel of the narrow phase reads its own candidates with no pass to sort
//! them (`emit_candidate` in `shaders/broad.wgsl`).
//!
//! Why from an earlier frame: the broad phase appends a candidate the moment it finds
//! it, before anyone knows how many of each kind pair there will be. A game's bodies
//! move little from one frame to the next, so the last frame's counts, with the buffer's
//! spare slots shared out among the bins, hold the next frame's. A frame whose bins did
//! not hold its candidates still counted all of them, kind pair by kind pair, and runs
//! again with its bins laid out from its own counts: nothing is lost. Measured on
//! lavapipe against a pass that counted and copied the candidates into bins after the
//! broad phase: the crowded 10k frames 0.1-0.4 ms faster (BENCHMARKS.md, "The narrow
//! phase by kind pair").

use crate::layout::packed::{Counters, BIN_START_ROWS, PAIR_KINDS};

use super::buffers::grown;

/// Spare slots a crowded frame's candidate buffer keeps at least, beyond its candidates,
/// so that its bins hold a frame whose counts moved a little.
const MIN_SPARE: u32 = PAIR_KINDS * 256;

/// `Params::bin_starts` for a buffer of `capacity` candidates. With the candidates of
/// each kind pair an earlier frame found (`kind_counts`), a bin each, as large as that
/// count and an even share of the spare slots (or, when the counts exceed the buffer,
/// shares in proportion to them: the frame will grow the buffer and run again);
/// without, one bin (bin 0) for every candidate.
pub(crate) fn bin_starts(
    kind_counts: Option<&[u32; PAIR_KINDS as usize]>,
    capacity: u32,
) -> [[u32; 4]; BIN_START_ROWS] {
    let kinds = PAIR_KINDS as usize;
    let mut starts = [[capacity; 4]; BIN_START_ROWS];
    let mut set = |b: usize, value: u32| starts[b / 4][b % 4] = value;
    set(0, 0);
    if let Some(counts) = kind_counts {
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        let capacity = capacity as u64;
        let spare = capacity.saturating_sub(total);
        let mut start = 0u64;
        for (k, &count) in counts.iter().enumerate().take(kinds - 1) {
            let size = if total <= capacity {
                count as u64 + spare / kinds as u64
            } else {
                capacity * count as u64 / total
            };
            start += size;
            set(k + 1, start as u32);
        }
    }
    starts
}

/// The candidate slots a frame with these counts asks for: room for every candidate,
/// and where its bins did not hold them, a quarter more and [`MIN_SPARE`], so that the
/// next frames' bins have spare slots to share out.
pub(crate) fn candidate_room(c: &Counters) -> u32 {
    if c.overflowed_bins == 0 {
        return grown(c.candidates);
    }
    let roomy = c.candidates as u64 + c.candidates as u64 / 4 + MIN_SPARE as u64;
    grown(roomy.min(u32::MAX as u64) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry `b` of the laid-out starts.
    fn start(starts: &[[u32; 4]; BIN_START_ROWS], b: usize) -> u32 {
        starts[b / 4][b % 4]
    }

    #[test]
    fn without_counts_bin_zero_is_the_whole_buffer() {
        let starts = bin_starts(None, 4096);
        assert_eq!(start(&starts, 0), 0);
        for b in 1..=PAIR_KINDS as usize {
            assert_eq!(start(&starts, b), 4096, "bin {b} is empty");
        }
    }

    #[test]
    fn each_bin_holds_its_count_and_a_share_of_the_spare_slots() {
        let counts: [u32; PAIR_KINDS as usize] =
            std::array::from_fn(|k| [3000, 0, 9000, 10, 500, 2000][k % 6]);
        let capacity = 32768;
        let starts = bin_starts(Some(&counts), capacity);
        let spare = (capacity - counts.iter().sum::<u32>()) / PAIR_KINDS;
        for (b, &count) in counts.iter().enumerate() {
            let size = start(&starts, b + 1) - start(&starts, b);
            assert!(size >= count + spare, "bin {b}: {size} slots for {count}");
        }
        assert_eq!(start(&starts, 0), 0);
        assert_eq!(
            start(&starts, PAIR_KINDS as usize),
            capacity,
            "the last bin ends at the buffer's end"
        );
    }

    #[test]
    fn counts_past_the_buffer_share_it_in_proportion_within_its_end() {
        let counts: [u32; PAIR_KINDS as usize] =
            std::array::from_fn(|k| [u32::MAX, u32::MAX, 7, 0, 1, 5][k % 6]);
        let starts = bin_starts(Some(&counts), 1000);
        for b in 0..PAIR_KINDS as usize {
            assert!(start(&starts, b) <= start(&starts, b + 1), "bins in order");
        }
        assert_eq!(start(&starts, PAIR_KINDS as usize), 1000);
    }

    #[test]
    fn a_frame_whose_bins_overflowed_asks_for_spare_slots() {
        let fitted = Counters {
            candidates: 19_000,
            ..Counters::default()
        };
        assert_eq!(candidate_room(&fitted), 32768);
        let overflowed = Counters {
            candidates: 30_000,
            overflowed_bins: 0b100,
            ..Counters::default()
        };
        // 30000 + 7500 + 1536 does not fit 32768.
        assert_eq!(candidate_room(&overflowed), 65536);
        let huge = Counters {
            candidates: u32::MAX - 5,
            overflowed_bins: 1,
            ..Counters::default()
        };
        assert_eq!(candidate_room(&huge), u32::MAX);
    }
}
