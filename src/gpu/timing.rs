//! Per-stage GPU times from timestamp queries, where the adapter has them: each stage
//! runs in its own compute pass whose start and end are stamped (or, where copies split
//! a stage, the start of its first pass and the end of its last), and the stamps travel
//! back in the frame's one readback.

/// The stages timed, in order: bounds, broad, narrow.
pub(crate) const TIMED_STAGES: u32 = crate::layout::shaders::Stage::ALL.len() as u32;

/// Bytes the resolved stamps take in the readback buffer.
pub(crate) const STAMP_BYTES: u64 = (2 * TIMED_STAGES * wgpu::QUERY_SIZE) as u64;

/// A query set with a start and end stamp per stage, and where they are resolved.
#[derive(Debug)]
pub(crate) struct StageTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
}

impl StageTimer {
    /// A timer, or `None` when the device cannot stamp timestamps.
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        Some(StageTimer {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("stage times"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * TIMED_STAGES,
            }),
            resolved: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("resolved stage times"),
                size: STAMP_BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period: queue.get_timestamp_period() as f64,
        })
    }

    /// The stamps of stage `k`'s pass.
    pub(crate) fn pass_writes(&self, k: u32) -> wgpu::ComputePassTimestampWrites<'_> {
        self.writes(k, true, true)
    }

    /// Stage `k`'s start stamp, for the first of the passes it takes (`first`) or its
    /// end stamp, for the last.
    pub(crate) fn split_pass_writes(
        &self,
        k: u32,
        first: bool,
    ) -> wgpu::ComputePassTimestampWrites<'_> {
        self.writes(k, first, !first)
    }

    fn writes(&self, k: u32, start: bool, end: bool) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: start.then_some(2 * k),
            end_of_pass_write_index: end.then_some(2 * k + 1),
        }
    }

    /// Resolves the stamps and copies them into `readback` at `offset`.
    pub(crate) fn resolve(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        readback: &wgpu::Buffer,
        offset: u64,
    ) {
        encoder.resolve_query_set(&self.queries, 0..2 * TIMED_STAGES, &self.resolved, 0);
        encoder.copy_buffer_to_buffer(&self.resolved, 0, readback, offset, STAMP_BYTES);
    }

    /// Milliseconds per stage from the resolved stamps.
    pub(crate) fn stage_ms(&self, stamps: &[u8]) -> [f64; TIMED_STAGES as usize] {
        let tick = |k: usize| -> u64 { bytemuck::pod_read_unaligned(&stamps[8 * k..8 * k + 8]) };
        std::array::from_fn(|s| {
            tick(2 * s + 1).saturating_sub(tick(2 * s)) as f64 * self.period / 1e6
        })
    }
}
