//! The one way results come back from the GPU: map a staging buffer, wait, read, unmap.
//! And [`MapOutcome`], for a mapping asked for now and read later, and where a frame's
//! results sit in the buffer it maps.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::timing::STAMP_BYTES;
use crate::error::Error;
use crate::layout::packed::Counters;

/// Where a frame's results sit in its readback buffer: the counters first, from 0.
/// Then the stage stamps, from here (`STAMP_BYTES` of them).
pub(crate) const STAMPS_AT: u64 = std::mem::size_of::<Counters>() as u64;
/// Then the pairs, from here; a frame with motion puts its times of impact after them.
pub(crate) const PAIRS_AT: u64 = STAMPS_AT + STAMP_BYTES;

/// How long a wait for a mapping's callback may take once the GPU is known to be done
/// with the buffer: the callback is then on its way, from another thread's poll at most.
pub const CALLBACK_WAIT: Duration = Duration::from_secs(30);

/// The outcome of a `map_async`, set by its callback.
///
/// Why a wait is needed after the device's own: wgpu runs a mapping's callback in
/// whichever thread's poll finds the GPU done with the buffer, after that poll has let go
/// of the device's locks. So a thread whose `poll(Wait)` has returned may find its
/// callback not yet run, while another thread that polls the same device (a game's
/// render loop, the tests' other threads) is about to run it. Measured: 3 threads
/// collecting frames while 2 others poll lost one frame in 100 to 400 with an error.
#[derive(Debug, Clone, Default)]
pub struct MapOutcome(Arc<(Mutex<MapState>, Condvar)>);

type MapState = Option<Result<(), wgpu::BufferAsyncError>>;

impl MapOutcome {
    /// The callback to hand to `map_async`.
    pub fn callback(&self) -> impl FnOnce(Result<(), wgpu::BufferAsyncError>) + Send + 'static {
        let outcome = self.0.clone();
        move |result| {
            let (state, arrived) = &*outcome;
            if let Ok(mut slot) = state.lock() {
                *slot = Some(result);
            }
            arrived.notify_all();
        }
    }

    /// Whether the callback has run; never waits.
    pub fn arrived(&self) -> bool {
        self.0 .0.lock().map(|s| s.is_some()).unwrap_or(true)
    }

    /// The outcome, waiting up to `timeout` for the callback; an error if it does not
    /// come or the mapping failed.
    pub fn wait(&self, timeout: Duration) -> Result<(), Error> {
        let (state, arrived) = &*self.0;
        let poisoned = || Error::Gpu("a map callback panicked".into());
        let slot = state.lock().map_err(|_| poisoned())?;
        let (mut slot, _) = arrived
            .wait_timeout_while(slot, timeout, |s| s.is_none())
            .map_err(|_| poisoned())?;
        slot.take()
            .ok_or_else(|| {
                Error::Gpu(format!(
                    "the readback was not mapped within {} s of the GPU finishing",
                    timeout.as_secs()
                ))
            })?
            .map_err(|e| Error::Gpu(format!("mapping the readback buffer failed: {e}")))
    }
}

/// Maps `buffer` (which must have `MAP_READ`) for reading, waits for the GPU, and hands
/// the mapped bytes to `read`; the buffer is unmapped afterwards, whatever happens.
pub fn read_mapped<T>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T, Error> {
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |result| {
        sender.send(result).ok();
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Gpu(format!("waiting for the GPU failed: {e}")))?;
    let mapped = pollster::block_on(receiver.receive())
        .ok_or_else(|| Error::Gpu("the readback was dropped".into()))?;
    mapped.map_err(|e| Error::Gpu(format!("mapping the readback buffer failed: {e}")))?;
    let result = match buffer.get_mapped_range(..) {
        Ok(view) => Ok(read(&view)),
        Err(e) => Err(Error::Gpu(format!("reading the mapped buffer failed: {e}"))),
    };
    buffer.unmap();
    result
}
