//! The one way results come back from the GPU: map a staging buffer, wait, read, unmap.

use crate::error::Error;

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
