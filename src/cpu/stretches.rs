//! Lists cut into stretches, one for each task on all cores, so that each task fills
//! its own stretch of several lists at once.

/// `items` cut before each of `starts` but the first (ascending, the first 0): one slice
/// a start, the last running to the end; none without starts. For tasks on all cores
/// that each fill a stretch of the same lists.
pub fn split_at_starts<T>(
    mut items: &mut [T],
    starts: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    let mut starts = starts.into_iter();
    let Some(mut start) = starts.next() else {
        return Vec::new();
    };
    let mut pieces = Vec::new();
    for next in starts {
        let (piece, rest) = std::mem::take(&mut items).split_at_mut(next - start);
        pieces.push(piece);
        (items, start) = (rest, next);
    }
    pieces.push(items);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretches_run_from_each_start_to_the_next_and_the_last_to_the_end() {
        let mut items: Vec<u32> = (0..10).collect();
        let pieces = split_at_starts(&mut items, [0, 3, 3, 7]);
        let lengths: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
        assert_eq!(lengths, [3, 0, 4, 3]);
        assert_eq!(pieces[3], [7, 8, 9]);
        assert!(split_at_starts(&mut items, []).is_empty());
        assert_eq!(split_at_starts(&mut items[..0], [0]).len(), 1);
    }
}
