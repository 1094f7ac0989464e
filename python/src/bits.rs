//! Masks as rows of 64-bit words, read from a `pygame.mask.Mask` or a numpy array, and
//! the exact overlap count pygame's `Mask.overlap_area` gives.
//!
//! pygame exposes a mask's bits through the buffer protocol as a 2D array of C
//! `unsigned long` words, `shape == (strips, height)`: the mask is cut into vertical
//! strips as wide as a word, and word `[s, y]` holds columns `s * W .. s * W + W` of row
//! `y`, column `s * W + k` in bit `k` (W = 64 where `unsigned long` has 8 bytes, 32 on
//! Windows). [`MaskBits`] turns that column-major layout into rows, as the library packs
//! a [`Bitmask`], so that rows can be compared and ANDed a word at a time.

use gpu_collide::shapes::MAX_BITMASK_SIDE;
use gpu_collide::Bitmask;
use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A 1-bit mask, row-major, `words_per_row` 64-bit words a row, column `c` of a row in
/// bit `c % 64` of word `c / 64`. Bits past the width are always clear, so two masks of
/// the same size and pixels have equal words.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MaskBits {
    pub width: u32,
    pub height: u32,
    pub words: Vec<u64>,
}

impl MaskBits {
    /// An all-clear mask (either side may be 0, as in pygame).
    pub fn new(width: u32, height: u32) -> Self {
        MaskBits {
            width,
            height,
            words: vec![0; words_per_row(width) * height as usize],
        }
    }

    pub fn words_per_row(&self) -> usize {
        words_per_row(self.width)
    }

    fn row(&self, y: u32) -> &[u64] {
        let n = self.words_per_row();
        &self.words[y as usize * n..(y as usize + 1) * n]
    }

    /// Whether no pixel is set: such a mask overlaps nothing, in pygame and here.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// 64 pixels of row `y` starting at column `x0` (any integer: columns outside the
    /// mask read as clear), pixel `x0 + k` in bit `k`.
    fn bits_at(&self, y: u32, x0: i64) -> u64 {
        let row = self.row(y);
        // Word index and shift of column x0, flooring for negative columns.
        let word = x0.div_euclid(64);
        let shift = x0.rem_euclid(64) as u32;
        let get = |w: i64| -> u64 {
            if w < 0 || w >= row.len() as i64 {
                0
            } else {
                row[w as usize]
            }
        };
        let low = get(word) >> shift;
        // A shift by 64 is not defined: with shift 0 the second word contributes nothing.
        let high = if shift == 0 {
            0
        } else {
            get(word + 1) << (64 - shift)
        };
        low | high
    }

    /// The mask cut into tiles of at most `side` pixels a side (`side` a multiple of 64,
    /// so that tiles start on word boundaries), as `(x, y, tile)` with `(x, y)` the
    /// tile's top-left pixel in this mask; tiles with no set pixel are left out.
    pub fn tiles(&self, side: u32) -> Vec<(u32, u32, MaskBits)> {
        debug_assert!(side > 0 && side.is_multiple_of(64));
        let per_row = self.words_per_row();
        let mut tiles = Vec::new();
        for y0 in (0..self.height).step_by(side as usize) {
            for x0 in (0..self.width).step_by(side as usize) {
                let (w, h) = ((self.width - x0).min(side), (self.height - y0).min(side));
                let mut tile = MaskBits::new(w, h);
                let tile_per_row = tile.words_per_row();
                let first_word = (x0 / 64) as usize;
                for y in 0..h as usize {
                    let from = (y0 as usize + y) * per_row + first_word;
                    tile.words[y * tile_per_row..(y + 1) * tile_per_row]
                        .copy_from_slice(&self.words[from..from + tile_per_row]);
                }
                if !tile.is_empty() {
                    tiles.push((x0, y0, tile));
                }
            }
        }
        tiles
    }

    /// The library's mask of these pixels; the library's refusal when a side is 0 or
    /// larger than it takes ([`MAX_BITMASK_SIDE`]).
    pub fn to_bitmask(&self) -> Result<Bitmask, String> {
        let mut mask = Bitmask::new(self.width, self.height)?;
        for y in 0..self.height {
            for (w, &word) in self.row(y).iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let k = bits.trailing_zeros();
                    mask.set(w as u32 * 64 + k, y, true);
                    bits &= bits - 1;
                }
            }
        }
        Ok(mask)
    }

    /// The pixels of a library mask (the unit tests build masks with it).
    #[cfg(test)]
    pub fn from_bitmask(mask: &Bitmask) -> Self {
        let mut bits = MaskBits::new(mask.width(), mask.height());
        let per_row32 = mask.width().div_ceil(32) as usize;
        let per_row64 = bits.words_per_row();
        for y in 0..mask.height() as usize {
            for (k, &word) in mask.words()[y * per_row32..(y + 1) * per_row32]
                .iter()
                .enumerate()
            {
                bits.words[y * per_row64 + k / 2] |= (word as u64) << (32 * (k % 2));
            }
        }
        bits
    }

    /// Set pixels of `self` that fall on set pixels of `other` placed with its top-left
    /// pixel on `self`'s pixel `offset`: exactly `self.overlap_area(other, offset)` in
    /// pygame. Each of `self`'s words is ANDed with the 64 pixels of `other` under it.
    pub fn overlap_area(&self, other: &MaskBits, offset: (i64, i64)) -> u64 {
        let (dx, dy) = offset;
        // Rows and columns of self that other covers.
        let y_first = dy.max(0);
        let y_end = (self.height as i64).min(dy.saturating_add(other.height as i64));
        let x_first = dx.max(0);
        let x_end = (self.width as i64).min(dx.saturating_add(other.width as i64));
        if y_first >= y_end || x_first >= x_end {
            return 0;
        }
        let mut count = 0u64;
        for y in y_first..y_end {
            let row = self.row(y as u32);
            for w in (x_first / 64)..=((x_end - 1) / 64) {
                let mine = row[w as usize];
                if mine != 0 {
                    // Columns outside other's width read as clear in bits_at, and those
                    // outside self's are clear in `mine`: no column mask is needed.
                    count +=
                        (mine & other.bits_at((y - dy) as u32, w * 64 - dx)).count_ones() as u64;
                }
            }
        }
        count
    }
}

/// 64-bit words a row of `width` pixels takes.
pub fn words_per_row(width: u32) -> usize {
    width.div_ceil(64) as usize
}

/// A pygame mask's size, from its `get_size()`.
fn pygame_size(mask: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    let (w, h): (i64, i64) = mask.call_method0("get_size")?.extract()?;
    let side = |v: i64| {
        u32::try_from(v).map_err(|_| {
            PyValueError::new_err(format!("mask size {w}x{h} is negative or too large"))
        })
    };
    Ok((side(w)?, side(h)?))
}

/// The raw buffer of a pygame mask: its bytes and its words' layout, checked against the
/// mask's size so that a buffer of some other shape is refused, never misread.
#[derive(Default)]
pub struct RawMask {
    pub width: u32,
    pub height: u32,
    /// Bytes of one word (8, or 4 where C's `unsigned long` is 32 bits).
    pub item_size: usize,
    pub bytes: Vec<u8>,
}

impl RawMask {
    /// Reads `mask`, a `pygame.mask.Mask` (or anything with `get_size()` and the same
    /// buffer layout). A mask with a side of 0 has no bits to read.
    pub fn read(mask: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut raw = RawMask {
            width: 0,
            height: 0,
            item_size: 8,
            bytes: Vec::new(),
        };
        raw.read_into(mask, false)?;
        Ok(raw)
    }

    /// Whether `mask` still has the size and pixels read into `self`; if not, `self`
    /// becomes what it has now. Compared in place, without copying the buffer.
    pub fn refresh(&mut self, mask: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.read_into(mask, true)
    }

    /// Reads `mask` into `self`; with `compare`, first tells whether it equals what
    /// `self` holds, and reads it only if not.
    fn read_into(&mut self, mask: &Bound<'_, PyAny>, compare: bool) -> PyResult<bool> {
        let (width, height) = pygame_size(mask).map_err(|e| {
            if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(mask.py()) {
                PyTypeError::new_err(format!(
                    "expected a pygame.mask.Mask or a gpu_collide.Bitmask, not {}",
                    type_name(mask)
                ))
            } else {
                e
            }
        })?;
        if width == 0 || height == 0 {
            // No bits; pygame's buffer of such a mask has a meaningless shape.
            let same = compare && self.width == width && self.height == height;
            *self = RawMask {
                width,
                height,
                item_size: 8,
                bytes: Vec::new(),
            };
            return Ok(same);
        }
        let buffer = PyUntypedBuffer::get(mask)?;
        let item_size = buffer.item_size();
        let strips = width.div_ceil(item_size as u32 * 8) as usize;
        let expected = [strips, height as usize];
        if !(item_size == 4 || item_size == 8)
            || buffer.shape() != expected
            || !buffer.is_c_contiguous()
            || buffer.len_bytes() != strips * height as usize * item_size
        {
            let shape = buffer.shape().to_vec();
            buffer.release(mask.py());
            return Err(PyTypeError::new_err(format!(
                "{} of size {width}x{height} does not expose pygame's mask layout \
                 (a C-contiguous buffer of {expected:?} words of 4 or 8 bytes), but {shape:?} of {item_size} bytes",
                type_name(mask)
            )));
        }
        // SAFETY: the buffer is held (not released) while its bytes are read, and
        // len_bytes is the length of the contiguous memory it exposes.
        let bytes = unsafe {
            std::slice::from_raw_parts(buffer.buf_ptr() as *const u8, buffer.len_bytes())
        };
        let same = compare
            && self.width == width
            && self.height == height
            && self.item_size == item_size
            && self.bytes == bytes;
        if !same {
            self.width = width;
            self.height = height;
            self.item_size = item_size;
            self.bytes.clear();
            self.bytes.extend_from_slice(bytes);
        }
        buffer.release(mask.py());
        Ok(same)
    }

    /// The pixels, row after row.
    pub fn to_bits(&self) -> MaskBits {
        let mut bits = MaskBits::new(self.width, self.height);
        if self.bytes.is_empty() {
            return bits;
        }
        let word_bits = self.item_size * 8;
        let strips = (self.width as usize).div_ceil(word_bits);
        let per_row = bits.words_per_row();
        let h = self.height as usize;
        for s in 0..strips {
            // Columns of this strip that lie inside the mask: any bit beyond is cleared, so
            // that equal pixels give equal words whatever pygame left in the padding.
            let valid = (self.width as usize - s * word_bits).min(word_bits);
            let keep = if valid == 64 {
                u64::MAX
            } else {
                (1u64 << valid) - 1
            };
            for y in 0..h {
                let at = (s * h + y) * self.item_size;
                let word = if self.item_size == 8 {
                    u64::from_ne_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"))
                } else {
                    u32::from_ne_bytes(self.bytes[at..at + 4].try_into().expect("4 bytes")) as u64
                } & keep;
                let column = s * word_bits;
                bits.words[y * per_row + column / 64] |= word << (column % 64);
            }
        }
        bits
    }
}

/// The type's qualified name, for messages.
pub fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .fully_qualified_name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// Checks a side against the library's limit, with the library's words.
pub fn check_side(width: u32, height: u32) -> PyResult<()> {
    for (name, side) in [("width", width), ("height", height)] {
        if side == 0 || side > MAX_BITMASK_SIDE {
            return Err(PyValueError::new_err(format!(
                "bitmask: {name} {side} is outside 1..={MAX_BITMASK_SIDE}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_rows(rows: &[&str]) -> MaskBits {
        MaskBits::from_bitmask(&Bitmask::from_rows(rows).unwrap())
    }

    /// Overlap counted pixel by pixel, the definition.
    fn slow_overlap(a: &MaskBits, b: &MaskBits, (dx, dy): (i64, i64)) -> u64 {
        let get = |m: &MaskBits, x: i64, y: i64| {
            x >= 0
                && y >= 0
                && x < m.width as i64
                && y < m.height as i64
                && m.words[y as usize * m.words_per_row() + x as usize / 64] >> (x % 64) & 1 == 1
        };
        let mut n = 0;
        for y in 0..a.height as i64 {
            for x in 0..a.width as i64 {
                if get(a, x, y) && get(b, x - dx, y - dy) {
                    n += 1;
                }
            }
        }
        n
    }

    #[test]
    fn overlap_area_matches_the_pixel_definition_across_word_edges() {
        // Widths around the word size, offsets of every sign, both ways round.
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for (wa, wb) in [(1, 1), (33, 70), (64, 65), (45, 128), (130, 3)] {
            let mut a = MaskBits::new(wa, 5);
            let mut b = MaskBits::new(wb, 4);
            for m in [&mut a, &mut b] {
                for y in 0..m.height {
                    for x in 0..m.width {
                        if next() % 3 != 0 {
                            let n = m.words_per_row();
                            m.words[y as usize * n + x as usize / 64] |= 1 << (x % 64);
                        }
                    }
                }
            }
            for dx in -(wb as i64) - 1..=wa as i64 + 1 {
                for dy in -5..=6 {
                    assert_eq!(
                        a.overlap_area(&b, (dx, dy)),
                        slow_overlap(&a, &b, (dx, dy)),
                        "{wa} {wb} {dx} {dy}"
                    );
                    assert_eq!(b.overlap_area(&a, (dx, dy)), slow_overlap(&b, &a, (dx, dy)));
                }
            }
        }
    }

    #[test]
    fn bitmask_round_trip_keeps_every_pixel() {
        let bits = from_rows(&["#..#", ".##.", "...#"]);
        assert_eq!(bits.words, vec![0b1001, 0b0110, 0b1000]);
        assert_eq!(MaskBits::from_bitmask(&bits.to_bitmask().unwrap()), bits);
        let wide = MaskBits {
            width: 70,
            height: 1,
            words: vec![1 << 63 | 1, 0b100000],
        };
        assert_eq!(MaskBits::from_bitmask(&wide.to_bitmask().unwrap()), wide);
    }

    #[test]
    fn tiles_hold_every_pixel_once_at_their_place() {
        let mut big = MaskBits::new(200, 130);
        for (x, y) in [
            (0, 0),
            (63, 0),
            (64, 1),
            (127, 64),
            (128, 65),
            (199, 129),
            (5, 100),
        ] {
            let n = big.words_per_row();
            big.words[y * n + x / 64] |= 1 << (x % 64);
        }
        let tiles = big.tiles(64);
        let mut seen = Vec::new();
        for (x0, y0, tile) in &tiles {
            assert!(tile.width <= 64 && tile.height <= 64 && !tile.is_empty());
            for y in 0..tile.height {
                for x in 0..tile.width {
                    if tile.words[y as usize * tile.words_per_row() + x as usize / 64] >> (x % 64)
                        & 1
                        == 1
                    {
                        seen.push((x0 + x, y0 + y));
                    }
                }
            }
        }
        seen.sort();
        let mut expected = vec![
            (0, 0),
            (63, 0),
            (64, 1),
            (127, 64),
            (128, 65),
            (199, 129),
            (5, 100),
        ];
        expected.sort();
        assert_eq!(seen, expected);
        // Empty tiles are left out: 4 x 3 tiles, of which 6 hold a pixel.
        assert_eq!(tiles.len(), 6);
        assert_eq!(
            tiles
                .iter()
                .find(|t| t.0 == 192 && t.1 == 128)
                .unwrap()
                .2
                .width,
            8
        );
    }

    #[test]
    fn edge_sharing_masks_do_not_overlap() {
        let a = from_rows(&["##", "##"]);
        assert_eq!(a.overlap_area(&a, (2, 0)), 0);
        assert_eq!(a.overlap_area(&a, (0, -2)), 0);
        assert_eq!(a.overlap_area(&a, (1, 1)), 1);
    }
}
