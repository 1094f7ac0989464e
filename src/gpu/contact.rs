//! Contacts on the GPU (scene format 1.1): host side of `shaders/contact.wgsl`.
//!
//! A contact frame is a plain frame (bounds, broad, narrow, grown and run again as
//! `find_pairs` runs it) with one more pass recorded after the narrow phase, in the same
//! submission: for every pair the narrow phase stored, its contact, into a list parallel
//! to the pair buffer, sized on the GPU from the pair count (`contact_args`) as the
//! narrow phase sizes its own. The pairs never leave the GPU in between; pairs and
//! contacts are read back after the one submission and sorted together. A contact that is
//! too long for one invocation (llvmpipe's loop cap, see the shader) runs as chunks in a
//! task list; when that list overflows, the pass alone runs again over the same pairs,
//! with longer lists.
//!
//! Nothing of this is built before the first call to `find_contacts`: a collider that
//! only finds pairs compiles, allocates and dispatches nothing more than before.

use std::mem::size_of;

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use super::buffers::{grown, make_buffer, Slot};
use super::collider::{FrameResult, GpuCollider};
use super::readback::read_mapped;
use super::{ContactKernels, Kernel, KernelFinder, KernelNames, StageGroups};
use crate::body::Body;
use crate::contact::{Contact, ContactKind};
use crate::error::Error;
use crate::packed::{DispatchArgs, SHAPE_BITMASK};

/// One pair's contact as the shader writes it (`ContactOut`): `normal` and `depth` for
/// two polygons or circles, `area` for a pair with a bitmask.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuContact {
    /// Unit direction from body `i` towards body `j`.
    pub normal: [f32; 2],
    /// The overlap along `normal`, as measured (possibly below 0 or not finite).
    pub depth: f32,
    /// Cells the pair shares.
    pub area: u32,
}

/// The pass's counters and its lists' capacities (`ContactCounters`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct ContactCounters {
    /// Pairs stored in the pair buffer, written by `contact_args`.
    pub pairs: u32,
    /// Pairs handed over to chunks, also those past the list's end.
    pub long_pairs: u32,
    /// Their chunks, also those past the task list's end.
    pub tasks: u32,
    /// Long pairs the list holds.
    pub long_capacity: u32,
    /// Chunks the task list holds.
    pub task_capacity: u32,
    /// Padding to 16-byte alignment.
    pub pad: [u32; 3],
}

/// A long pair (`ContactLong`): 4 words.
const LONG_BYTES: u64 = 16;
/// A chunk of a long pair (`ContactTask`): 4 words.
const TASK_BYTES: u64 = 16;

/// Where the pass's own buffers sit, after the narrow stage's bindings 0 to 11.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactSlot {
    /// A buffer of the frame, as the narrow stage binds it.
    Frame(Slot),
    /// The contacts, parallel to the pairs.
    Contacts,
    /// [`ContactCounters`].
    Counters,
    /// Long pairs.
    Longs,
    /// Their chunks.
    Tasks,
    /// Indirect dispatch sizes of `contact_plan`, `contact_task` and `contact_finish`.
    Args,
}

impl ContactSlot {
    /// The names a WGSL variable bound to this buffer may have.
    pub fn wgsl_names(self) -> &'static [&'static str] {
        match self {
            ContactSlot::Frame(slot) => slot.wgsl_names(),
            ContactSlot::Contacts => &["contacts"],
            ContactSlot::Counters => &["contact_counters"],
            ContactSlot::Longs => &["contact_longs"],
            ContactSlot::Tasks => &["contact_tasks"],
            ContactSlot::Args => &["contact_dispatch_args"],
        }
    }
}

/// The buffer at each binding number the pass's kernels use.
pub const BINDINGS: &[(u32, ContactSlot)] = &[
    (0, ContactSlot::Frame(Slot::Params)),
    (1, ContactSlot::Frame(Slot::Library)),
    (2, ContactSlot::Frame(Slot::Transforms)),
    (3, ContactSlot::Frame(Slot::Infos)),
    (5, ContactSlot::Frame(Slot::Counters)),
    (6, ContactSlot::Frame(Slot::Pairs)),
    (12, ContactSlot::Contacts),
    (13, ContactSlot::Counters),
    (14, ContactSlot::Longs),
    (15, ContactSlot::Tasks),
    (16, ContactSlot::Args),
];

/// The pass's kernels, in dispatch order.
#[derive(Debug)]
pub(crate) struct Kernels {
    args: Kernel,
    plan: Kernel,
    task_args: Kernel,
    task: Kernel,
    finish: Kernel,
}

impl KernelNames for Kernels {
    fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
        Ok(Kernels {
            args: kernels.find("contact_args")?,
            plan: kernels.find("contact_plan")?,
            task_args: kernels.find("contact_task_args")?,
            task: kernels.find("contact_task")?,
            finish: kernels.find("contact_finish")?,
        })
    }
}

/// Slots of the pass's indirect arguments.
const ARGS_PLAN: u32 = 0;
const ARGS_TASK: u32 = 1;
const ARGS_FINISH: u32 = 2;

/// What `find_contacts` keeps between frames: the compiled kernels, and once a frame
/// has run, the buffers and bind groups.
#[derive(Debug, Default)]
pub(crate) struct ContactState {
    /// Set while a contact frame runs, so that each run records the pass.
    pub(crate) active: bool,
    pipelines: Option<Arc<ContactKernels>>,
    pass: Option<ContactPass>,
}

/// The pass's buffers, sized for a pair capacity, and its bind groups over them and the
/// frame's buffers.
#[derive(Debug)]
struct ContactPass {
    contacts: wgpu::Buffer,
    counters: wgpu::Buffer,
    args: wgpu::Buffer,
    /// The long pairs and their chunks, held here as well as by the groups.
    _lists: [wgpu::Buffer; 2],
    /// Counters then contacts, mapped after the submission.
    readback: wgpu::Buffer,
    /// Contacts the buffers hold (the frame's pair capacity), long pairs and chunks.
    capacity: (u32, u32, u32),
    /// The frame's pair buffer the groups bind: new frame buffers mean new groups.
    bound_pairs: wgpu::Buffer,
    groups: StageGroups,
}

impl GpuCollider {
    /// The contact of every pair `find_pairs` gives at `t = 0`, sorted by pair.
    pub(crate) fn contacts_checked(&mut self, bodies: &[Body]) -> Result<Vec<Contact>, Error> {
        // Velocities are ignored: the frame is the bodies at t = 0.
        let still: Vec<Body>;
        let bodies = if crate::motion::any_moving(bodies) {
            still = bodies
                .iter()
                .map(|b| b.with_velocity(glam::Vec2::ZERO))
                .collect();
            &still
        } else {
            bodies
        };
        self.contact.active = true;
        let found = self.find_frame(bodies);
        self.contact.active = false;
        let (pairs, raw) = found?;
        let shapes = &self.library().shapes;
        let is_mask =
            |body: u32| shapes[bodies[body as usize].shape as usize].kind == SHAPE_BITMASK;
        let mut contacts: Vec<Contact> = pairs
            .iter()
            .zip(&raw)
            .map(|(&pair, c)| Contact {
                pair,
                kind: if is_mask(pair[0]) || is_mask(pair[1]) {
                    ContactKind::Area(c.area)
                } else {
                    ContactKind::Penetration {
                        normal: glam::Vec2::from(c.normal),
                        depth: depth_of(c.depth),
                    }
                },
            })
            .collect();
        contacts.sort_unstable_by_key(|c| c.pair);
        Ok(contacts)
    }

    /// One run of the frame (as `run`), with the contact pass recorded after the narrow
    /// phase; the frame result carries the contacts of its stored pairs.
    pub(crate) fn run_with_contacts(
        &mut self,
        bodies: u32,
        lookers: (u32, u32),
        limit: u32,
    ) -> Result<FrameResult, Error> {
        self.prepare_contact_pass()?;
        let device = &self.context.device;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("contact frame"),
        });
        self.encode_run_with_copies(
            &mut encoder,
            bodies,
            lookers,
            limit,
            &self.buffers.readback,
            None,
        );
        self.encode_contact_pass(&mut encoder);
        self.context.queue.submit([encoder.finish()]);
        let pair_capacity = self.capacity.pairs;
        let timed = self.stage_timer().is_some();
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

/// The counters and the first `stored` contacts of the pass's readback.
fn read_contacts(bytes: &[u8], stored: usize) -> (ContactCounters, Vec<GpuContact>) {
    let at = size_of::<ContactCounters>();
    let counters: ContactCounters = bytemuck::pod_read_unaligned(&bytes[..at]);
    let contacts = bytes[at..]
        .chunks_exact(size_of::<GpuContact>())
        .take(stored)
        .map(bytemuck::pod_read_unaligned::<GpuContact>)
        .collect();
    (counters, contacts)
}

/// A measured overlap as a depth, as the cpu backend gives it: at least 0 (touching),
/// and finite even when the arithmetic overflowed far past the format's range.
fn depth_of(overlap: f32) -> f32 {
    if overlap.is_nan() || overlap < 0.0 {
        0.0
    } else {
        overlap.min(f32::MAX)
    }
}
