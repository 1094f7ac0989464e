//! The contact pass of [`FramePipeline`]: built over the frame's pair buffer, recorded
//! after the narrow phase, and run again over the pairs still on the GPU when its long
//! tests overflowed; the pass itself (kernels, buffers, readback layout) is `gpu::contact`.

use std::mem::size_of;

use bytemuck::Zeroable;

use super::{FramePipeline, FrameResult, Run};
use crate::error::Error;
use crate::gpu::buffers::{grown, make_buffer};
use crate::gpu::contact::{
    read_contacts, ContactCounters, ContactPass, ContactSlot, GpuContact, ARGS_FINISH, ARGS_PLAN,
    ARGS_TASK, LONG_BYTES, TASK_BYTES,
};
use crate::gpu::readback::read_mapped;
use crate::layout::packed::DispatchArgs;

impl FramePipeline {
    /// One run of the frame (as `run`), with the contact pass recorded after the narrow
    /// phase; the frame result carries the contacts of its stored pairs.
    pub(crate) fn run_with_contacts(
        &mut self,
        bodies: u32,
        slice: (u32, u32),
        limit: u32,
        timed: bool,
    ) -> Result<FrameResult, Error> {
        self.prepare_contact_pass()?;
        let device = &self.context.device;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("contact frame"),
        });
        let run = Run::uploaded(bodies, slice, limit, timed, false);
        self.encode_run_with_copies(&mut encoder, &run, &self.buffers.readback, None);
        self.encode_contact_pass(&mut encoder);
        self.context.queue.submit([encoder.finish()]);
        let pair_capacity = self.capacity.pairs;
        let timed = self.timer(timed).is_some();
        let mut frame = read_mapped(device, &self.buffers.readback, |bytes| {
            self.frame_result(bytes, pair_capacity, timed)
        })?;
        loop {
            let pass = self.contact_pass()?;
            let (counters, contacts) =
                read_mapped(&self.context.device, &pass.readback, |bytes| {
                    read_contacts(bytes, frame.pairs.len())
                })?;
            self.context.check_uncaptured()?;
            let (_, longs, tasks) = pass.capacity;
            // A frame whose pairs did not all fit runs again anyway.
            let rerun = frame.counters.pairs > pair_capacity;
            if rerun || (counters.long_pairs <= longs && counters.tasks <= tasks) {
                frame.contacts = contacts;
                return Ok(frame);
            }
            // The long pairs' lists overflowed: longer ones, and the pass again over the
            // pairs still on the GPU.
            let capacity = (
                pass.capacity.0,
                longs.max(grown(counters.long_pairs)),
                tasks.max(grown(counters.tasks)),
            );
            self.build_contact_pass(capacity)?;
            let mut encoder =
                self.context
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("contact pass"),
                    });
            self.encode_contact_pass(&mut encoder);
            self.context.queue.submit([encoder.finish()]);
        }
    }

    fn contact_pass(&self) -> Result<&ContactPass, Error> {
        self.contact
            .pass
            .as_ref()
            .ok_or_else(|| Error::Gpu("the contact pass was not built".into()))
    }

    /// Compiles the kernels on first use, and builds the buffers and groups when the
    /// frame's buffers changed since (or none are built yet).
    fn prepare_contact_pass(&mut self) -> Result<(), Error> {
        if self.contact.pipelines.is_none() {
            self.contact.pipelines = Some(self.context.contact_pipelines(self.library_binding)?);
        }
        let current = match &self.contact.pass {
            Some(pass) => {
                pass.bound_pairs == self.buffers.pairs && pass.capacity.0 == self.capacity.pairs
            }
            None => false,
        };
        if !current {
            let (longs, tasks) = self
                .contact
                .pass
                .as_ref()
                .map_or((256, 1024), |p| (p.capacity.1, p.capacity.2));
            self.build_contact_pass((self.capacity.pairs, longs, tasks))?;
        }
        Ok(())
    }

    /// Makes the pass's buffers for `(contacts, long pairs, chunks)` and binds them.
    fn build_contact_pass(&mut self, capacity: (u32, u32, u32)) -> Result<(), Error> {
        use wgpu::BufferUsages as U;
        let device = &self.context.device;
        let make =
            |label: &'static str, size: u64, usage: U| make_buffer(device, label, size, usage);
        let contact_bytes = capacity.0 as u64 * size_of::<GpuContact>() as u64;
        let counter_bytes = size_of::<ContactCounters>() as u64;
        let contacts = make("contacts", contact_bytes, U::STORAGE | U::COPY_SRC)?;
        let counters = make(
            "contact counters",
            counter_bytes,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        )?;
        let longs = make(
            "contact long pairs",
            capacity.1 as u64 * LONG_BYTES,
            U::STORAGE,
        )?;
        let tasks = make("contact tasks", capacity.2 as u64 * TASK_BYTES, U::STORAGE)?;
        let args = make(
            "contact dispatch arguments",
            3 * size_of::<DispatchArgs>() as u64,
            U::STORAGE | U::INDIRECT,
        )?;
        let readback = make(
            "contact readback",
            counter_bytes + contact_bytes,
            U::MAP_READ | U::COPY_DST,
        )?;
        let pipelines = self
            .contact
            .pipelines
            .as_ref()
            .ok_or_else(|| Error::Gpu("the contact kernels were not compiled".into()))?;
        let buffer = |slot: ContactSlot| -> Option<&wgpu::Buffer> {
            match slot {
                ContactSlot::Frame(slot) => self.buffers.get(slot),
                ContactSlot::Contacts => Some(&contacts),
                ContactSlot::Counters => Some(&counters),
                ContactSlot::Longs => Some(&longs),
                ContactSlot::Tasks => Some(&tasks),
                ContactSlot::Args => Some(&args),
            }
        };
        let groups = pipelines.bind_all_with(device, buffer);
        self.contact.pass = Some(ContactPass {
            contacts,
            counters,
            args,
            _lists: [longs, tasks],
            readback,
            capacity,
            bound_pairs: self.buffers.pairs.clone(),
            groups,
        });
        Ok(())
    }

    /// Records the pass over the pairs the frame stored, and the copy of its counters
    /// and contacts into its readback buffer.
    fn encode_contact_pass(&self, encoder: &mut wgpu::CommandEncoder) {
        let (Some(pass), Some(pipelines)) = (&self.contact.pass, &self.contact.pipelines) else {
            return;
        };
        let (_, longs, tasks) = pass.capacity;
        let counters = ContactCounters {
            long_capacity: longs,
            task_capacity: tasks,
            ..ContactCounters::zeroed()
        };
        // Through the queue: it applies before the submission this encoder goes into.
        self.context
            .queue
            .write_buffer(&pass.counters, 0, bytemuck::bytes_of(&counters));
        {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("contact"),
                timestamp_writes: None,
            });
            let (k, groups) = (&pipelines.named, &pass.groups);
            pipelines.dispatch(&mut compute, groups, k.args, (1, 1));
            pipelines.dispatch_indirect(&mut compute, groups, k.plan, &pass.args, ARGS_PLAN);
            pipelines.dispatch(&mut compute, groups, k.task_args, (1, 1));
            pipelines.dispatch_indirect(&mut compute, groups, k.task, &pass.args, ARGS_TASK);
            pipelines.dispatch_indirect(&mut compute, groups, k.finish, &pass.args, ARGS_FINISH);
        }
        let counter_bytes = size_of::<ContactCounters>() as u64;
        encoder.copy_buffer_to_buffer(&pass.counters, 0, &pass.readback, 0, counter_bytes);
        encoder.copy_buffer_to_buffer(
            &pass.contacts,
            0,
            &pass.readback,
            counter_bytes,
            pass.contacts.size(),
        );
    }
}
