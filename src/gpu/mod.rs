//! The GPU path: picking an adapter and opening a device ([`GpuContext`]), the
//! stages' pipelines (one module each, named as their WGSL file), the one readback
//! helper, the frame pipeline, which owns the kernels and buffers, and [`GpuCollider`],
//! which runs a frame on it.

mod bins;
mod buffers;
mod collider;
#[cfg(feature = "internals")]
mod kernel_list;
mod kernels;
mod lockstep;
mod part_groups;
internal_mods!(bounds, broad, contact, narrow, query, readback);
mod pending;
mod pipeline;
mod record;
mod sweep;
mod timing;

#[cfg(feature = "internals")]
#[doc(hidden)]
pub use buffers::Slot;
pub use collider::GpuCollider;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use kernel_list::{binding_names, kernel_bindings, KernelBindings};
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use kernels::{reflect, EntryBindings};
pub(crate) use kernels::{Kernel, KernelFinder, KernelNames, StageGroups, StageKernels};
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use lockstep::llvmpipe_lanes;
pub use pending::{PendingFrame, MAX_FRAMES_IN_FLIGHT};
pub use record::{BodyLayout, RecordedCounts, RecordedFrame, PAIRS_WGSL};

use std::sync::{Arc, Mutex, OnceLock};

use crate::error::Error;
use crate::grid::bucket_count;
use crate::layout::packed::{DISPATCH_WIDTH, WORKGROUP_SIZE};
use crate::layout::shaders::{GridBinding, LibraryBinding, Stage};
use lockstep::check_lockstep_lanes;

/// A device and queue on a chosen adapter, shared by any number of colliders.
///
/// Cloning is cheap and shares the device.
#[derive(Debug, Clone)]
pub struct GpuContext {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// What the adapter says about itself.
    pub adapter: wgpu::AdapterInfo,
    /// Errors wgpu reported outside any error scope, or the device's loss; checked after each frame.
    uncaptured: Arc<Mutex<Vec<String>>>,
    /// The stages' pipelines, compiled once per device and form of the library's binding
    /// (indexed by `binding_slot`) on first use, and shared by all colliders.
    pipelines: Arc<[OnceLock<Arc<Pipelines>>; 2]>,
    /// The broad stage's, which reads no library, for each form of the walk's reads of
    /// the grid (indexed by `grid_slot`).
    broad: Arc<[OnceLock<Arc<BroadKernels>>; 2]>,
    /// The contact pass's pipelines, compiled on the first `find_contacts` (`contact`).
    contact_pipelines: Arc<[OnceLock<Arc<ContactKernels>>; 2]>,
}

/// The compiled pipelines of the stages that read the library, for one form of its
/// binding; the broad stage's are apart ([`GpuContext::broad_kernels`]).
#[derive(Debug)]
pub(crate) struct Pipelines {
    pub(crate) bounds: StageKernels<bounds::Kernels>,
    pub(crate) narrow: StageKernels<narrow::Kernels>,
    pub(crate) query: StageKernels<query::Kernels>,
}

/// The broad stage's compiled kernels.
pub(crate) type BroadKernels = StageKernels<broad::Kernels>;

/// The contact pass's compiled kernels.
pub(crate) type ContactKernels = StageKernels<contact::Kernels, contact::ContactSlot>;

/// What `cell` holds, made by `make` if it holds nothing yet. Two threads that find it
/// empty at once both make it, and one's is kept.
fn compiled<T>(
    cell: &OnceLock<Arc<T>>,
    make: impl FnOnce() -> Result<T, Error>,
) -> Result<Arc<T>, Error> {
    if let Some(done) = cell.get() {
        return Ok(done.clone());
    }
    let made = Arc::new(make()?);
    Ok(cell.get_or_init(|| made).clone())
}

/// The index of the broad stage's kernels for `grid` in [`GpuContext`].
fn grid_slot(grid: GridBinding) -> usize {
    match grid {
        GridBinding::Storage => 0,
        GridBinding::Uniform => 1,
    }
}

/// The index of `library`'s pipelines in [`GpuContext`].
fn binding_slot(library: LibraryBinding) -> usize {
    match library {
        LibraryBinding::Storage => 0,
        LibraryBinding::Uniform => 1,
    }
}

impl GpuContext {
    /// Opens a device on the best adapter wgpu can find: a discrete GPU first, then an
    /// integrated one, then software ones (Vulkan before GL).
    ///
    /// `WGPU_BACKEND` (e.g. `vulkan`, `gl`) limits the backends tried and
    /// `WGPU_ADAPTER_NAME` picks the first adapter whose name contains it.
    pub fn new() -> Result<Self, Error> {
        pollster::block_on(Self::new_async())
    }

    /// [`GpuContext::new`], but asking for exactly `limits` (for example
    /// `wgpu::Limits::default()`, to check that a scene fits any WebGPU device).
    pub fn with_limits(limits: wgpu::Limits) -> Result<Self, Error> {
        pollster::block_on(Self::new_async_with(Some(limits)))
    }

    /// [`GpuContext::new`], as a future.
    pub async fn new_async() -> Result<Self, Error> {
        Self::new_async_with(None).await
    }

    async fn new_async_with(limits: Option<wgpu::Limits>) -> Result<Self, Error> {
        let adapters = usable_adapters().await?;
        if adapters.is_empty() {
            // Only now, on the way to failing, ask why: the advice differs for each cause,
            // and installing a driver is the answer to only one of them.
            let all = all_adapters().await?;
            if all.is_empty() {
                let backends = std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "all".into());
                return Err(Error::NoAdapter(format!(
                    "no adapter on backends `{backends}`"
                )));
            }
            let described = all
                .iter()
                .map(|a| describe_adapter(&a.get_info()))
                .collect();
            let wanted = std::env::var("WGPU_ADAPTER_NAME").ok();
            return Err(match wanted {
                Some(wanted)
                    if !all.iter().any(|a| {
                        a.get_info()
                            .name
                            .to_lowercase()
                            .contains(&wanted.to_lowercase())
                    }) =>
                {
                    Error::AdapterNotFound {
                        wanted,
                        adapters: described,
                    }
                }
                _ => Error::NoUsableAdapter {
                    adapters: described,
                },
            });
        }
        let mut failures = Vec::new();
        for adapter in adapters {
            match Self::open(adapter, limits.clone()).await {
                Ok(context) => return Ok(context),
                Err(error) => failures.push(error.to_string()),
            }
        }
        Err(Error::NoDevice(failures.join("; ")))
    }

    /// Wraps a device the caller opened (a game's own, rendering as well), for any number
    /// of colliders, so that no second device is opened and buffers can be shared.
    ///
    /// The device must offer what the kernels need, which `wgpu::Limits::default()`
    /// does: 8 storage buffers per shader stage, workgroups of 64 invocations and
    /// 32768 workgroups per dimension; otherwise this fails with
    /// [`Error::DeviceLimit`] naming the limit. Nothing of the device is changed: its
    /// error handler and device-lost callback stay the caller's, and gpu-collide reads
    /// its own errors through error scopes around its own work. Stage times are measured
    /// where the device was opened with `wgpu::Features::TIMESTAMP_QUERY`.
    ///
    /// ```no_run
    /// use gpu_collide::{wgpu, GpuContext};
    /// # async fn open() -> Result<(), Box<dyn std::error::Error>> {
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    /// let adapter = instance.request_adapter(&wgpu::RequestAdapterOptions::default()).await?;
    /// let (device, queue) = adapter.request_device(&wgpu::DeviceDescriptor::default()).await?;
    /// let gpu = GpuContext::from_device(device, queue)?;
    /// # Ok(()) }
    /// ```
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Result<Self, Error> {
        let limits = device.limits();
        let needed = [
            (
                "max_storage_buffers_per_shader_stage",
                limits.max_storage_buffers_per_shader_stage,
                8,
            ),
            (
                "max_compute_workgroup_size_x",
                limits.max_compute_workgroup_size_x,
                WORKGROUP_SIZE,
            ),
            (
                "max_compute_invocations_per_workgroup",
                limits.max_compute_invocations_per_workgroup,
                WORKGROUP_SIZE,
            ),
            (
                "max_compute_workgroups_per_dimension",
                limits.max_compute_workgroups_per_dimension,
                DISPATCH_WIDTH,
            ),
        ];
        for (limit, has, need) in needed {
            if has < need {
                return Err(Error::DeviceLimit {
                    limit,
                    needed: need as u64,
                    has: has as u64,
                });
            }
        }
        let adapter = device.adapter_info();
        check_lockstep_lanes(&adapter)?;
        Ok(GpuContext {
            adapter,
            device,
            queue,
            uncaptured: Arc::default(),
            pipelines: Arc::default(),
            broad: Arc::default(),
            contact_pipelines: Arc::default(),
        })
    }

    /// Opens a device on this adapter with `limits`, or with all the limits it offers.
    pub async fn open(adapter: wgpu::Adapter, limits: Option<wgpu::Limits>) -> Result<Self, Error> {
        let info = adapter.get_info();
        check_lockstep_lanes(&info)?;
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("gpu-collide"),
            // Timestamps, where the adapter has them, time the stages for benchmarks.
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits: limits.unwrap_or_else(|| adapter.limits()),
            ..Default::default()
        };
        let (device, queue) =
            adapter
                .request_device(&descriptor)
                .await
                .map_err(|e| Error::RequestDevice {
                    adapter: info.name.clone(),
                    reason: e.to_string(),
                })?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        // wgpu's default handler panics; errors are values here.
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            if let Ok(mut errors) = sink.lock() {
                errors.push(error.to_string());
            }
        }));
        let sink = uncaptured.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut errors) = sink.lock() {
                errors.push(format!("device lost ({reason:?}): {message}"));
            }
        });
        Ok(GpuContext {
            device,
            queue,
            adapter: info,
            uncaptured,
            pipelines: Arc::default(),
            broad: Arc::default(),
            contact_pipelines: Arc::default(),
        })
    }

    /// The pipelines for a library bound as `library`, compiled on first use; fails
    /// where a shader and the host disagree ([`kernel_bindings`]).
    pub(crate) fn pipelines(&self, library: LibraryBinding) -> Result<Arc<Pipelines>, Error> {
        let device = &self.device;
        let stage = |stage: Stage, table| (stage.name(), stage.source_with(library), table);
        compiled(&self.pipelines[binding_slot(library)], || {
            let (name, source, table) = stage(Stage::Bounds, bounds::BINDINGS);
            let bounds = StageKernels::new(device, name, source, table)?;
            let (name, source, table) = stage(Stage::Narrow, narrow::BINDINGS);
            let narrow = StageKernels::new(device, name, source, table)?;
            let (name, source, table) = stage(Stage::Query, query::BINDINGS);
            let query = StageKernels::new(device, name, source, table)?;
            Ok(Pipelines {
                bounds,
                narrow,
                query,
            })
        })
    }

    /// The broad stage's kernels, whose walk reads the grid through `grid`, compiled on
    /// first use.
    pub(crate) fn broad_kernels(&self, grid: GridBinding) -> Result<Arc<BroadKernels>, Error> {
        compiled(&self.broad[grid_slot(grid)], || {
            // The broad stage reads no library, so either form compiles the same module.
            let source = Stage::Broad.source_for(LibraryBinding::Storage, grid);
            StageKernels::new(&self.device, Stage::Broad.name(), source, broad::BINDINGS)
        })
    }

    /// The contact pass's pipelines for a library bound as `library`, compiled on first use.
    pub(crate) fn contact_pipelines(
        &self,
        library: LibraryBinding,
    ) -> Result<Arc<ContactKernels>, Error> {
        compiled(&self.contact_pipelines[binding_slot(library)], || {
            let source = crate::layout::shaders::contact_source(library);
            StageKernels::new(&self.device, "contact", source, contact::BINDINGS)
        })
    }

    /// How a shape library of `bytes` is bound on this device ([`LibraryBinding`]): as a
    /// uniform buffer on a software adapter where it fits, as a storage buffer otherwise.
    pub(crate) fn library_binding(&self, bytes: u64) -> LibraryBinding {
        if self.reads_uniform_tables() && bytes <= LibraryBinding::UNIFORM_BYTES {
            LibraryBinding::Uniform
        } else {
            LibraryBinding::Storage
        }
    }

    /// How the walk of a collider with room for `bodies` bodies may read the grid on this
    /// device ([`GridBinding`]): from uniform copies (in crowded frames,
    /// [`GpuCollider::grid_binding`]) on a software adapter where the grid fits them,
    /// from its storage buffers always otherwise.
    pub(crate) fn grid_binding(&self, bodies: u32) -> GridBinding {
        let fits = bodies <= GridBinding::UNIFORM_ENTRIES
            && bucket_count(bodies as usize) <= GridBinding::UNIFORM_BUCKETS;
        if self.reads_uniform_tables() && fits {
            GridBinding::Uniform
        } else {
            GridBinding::Storage
        }
    }

    /// Whether tables the kernels read on every turn of their loops are worth binding
    /// as uniform buffers of [`LibraryBinding::UNIFORM_BYTES`] here: on a software
    /// adapter that allows a binding that large ([`LibraryBinding`] says why).
    fn reads_uniform_tables(&self) -> bool {
        self.adapter.device_type == wgpu::DeviceType::Cpu
            && self.device.limits().max_uniform_buffer_binding_size >= LibraryBinding::UNIFORM_BYTES
    }

    /// One line naming the adapter, its backend, type and driver.
    pub fn describe(&self) -> String {
        describe_adapter(&self.adapter)
    }

    /// Fails with the first error wgpu reported outside a scope since the last check.
    pub(crate) fn check_uncaptured(&self) -> Result<(), Error> {
        let mut errors = self
            .uncaptured
            .lock()
            .map_err(|_| Error::Gpu("error log poisoned".into()))?;
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Error::Gpu(std::mem::take(&mut *errors).join("; ")))
        }
    }

    /// Runs `work` with wgpu's validation, out-of-memory and internal errors captured,
    /// and turns any of them into [`Error::Gpu`].
    pub(crate) fn scoped<T>(&self, work: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let result = work();
        let errors = [
            pollster::block_on(validation.pop()),
            pollster::block_on(memory.pop()),
            pollster::block_on(internal.pop()),
        ];
        if let Some(error) = errors.into_iter().flatten().next() {
            return Err(Error::Gpu(error.to_string()));
        }
        self.check_uncaptured()?;
        result
    }
}

/// One line naming an adapter, its backend, type and driver.
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    )
}

/// The instance the library makes: wgpu's defaults and environment variables, but
/// without wgpu's check of indirect dispatch arguments unless
/// `WGPU_VALIDATION_INDIRECT_CALL` (`indirect_check`) asks for it.
///
/// Why: before every indirect dispatch wgpu runs a one-thread dispatch of its own, with
/// its own pipeline, to check that the arguments stay within
/// `max_compute_workgroups_per_dimension`, and a frame has a dozen indirect dispatches.
/// Measured on lavapipe (`bench --scene FILES --backend gpu`, the check on and off
/// alternated twice): the mixed 10k frame 10.4-10.7 ms with it and 9.5-9.7 without, the
/// bitmask 10k frame 10.7-10.8 and 10.3-10.4. The kernels
/// lay every argument out as `dispatch_for` does (shaders/types.wgsl): at most
/// [`DISPATCH_WIDTH`] workgroups along x, and along y at most 2^32 / (WORKGROUP_SIZE ·
/// DISPATCH_WIDTH) for a thread per item, or 2^30 / DISPATCH_WIDTH for
/// `sweep_long_args`'s workgroup per slot of a list of words; within the limit checked
/// when the device is made (`indirect_arguments_stay_within_the_limit` tests the
/// bounds). A caller's own device keeps the caller's flags.
fn instance_descriptor(indirect_check: Option<std::ffi::OsString>) -> wgpu::InstanceDescriptor {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    if indirect_check.is_none() {
        descriptor
            .flags
            .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    descriptor
}

/// Every adapter wgpu sees on the backends `WGPU_BACKEND` allows, whether usable or not.
///
/// Fails when `WGPU_BACKEND` names something that is not a backend: wgpu would skip the
/// name with a log line and try none, so that a typo looked like a machine without a GPU.
pub async fn all_adapters() -> Result<Vec<wgpu::Adapter>, Error> {
    let mut descriptor = instance_descriptor(std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL"));
    if let Ok(value) = std::env::var("WGPU_BACKEND") {
        // The names wgpu's `Backends::from_comma_list` accepts (wgpu-types 30), checked
        // here because it skips the others; empty items (`vulkan,`) are harmless.
        let mut backends = wgpu::Backends::empty();
        for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            backends |= match name.to_lowercase().as_str() {
                "vulkan" | "vk" => wgpu::Backends::VULKAN,
                "dx12" | "d3d12" => wgpu::Backends::DX12,
                "metal" | "mtl" => wgpu::Backends::METAL,
                "opengl" | "gles" | "gl" => wgpu::Backends::GL,
                "webgpu" => wgpu::Backends::BROWSER_WEBGPU,
                "noop" => wgpu::Backends::NOOP,
                _ => {
                    return Err(Error::UnknownBackend {
                        problem: format!("`{name}` is not a backend"),
                        value,
                    })
                }
            };
        }
        if backends.is_empty() {
            return Err(Error::UnknownBackend {
                value,
                problem: "names no backend".into(),
            });
        }
        descriptor.backends = backends;
    }
    let instance = wgpu::Instance::new(descriptor);
    Ok(instance.enumerate_adapters(wgpu::Backends::all()).await)
}

/// Adapters that can run the pipeline, best first; only those whose name contains
/// `WGPU_ADAPTER_NAME` (case-insensitive) when it is set. Fails as [`all_adapters`] does.
pub async fn usable_adapters() -> Result<Vec<wgpu::Adapter>, Error> {
    let wanted = std::env::var("WGPU_ADAPTER_NAME")
        .ok()
        .map(|n| n.to_lowercase());
    let mut adapters: Vec<wgpu::Adapter> = all_adapters()
        .await?
        .into_iter()
        .filter(|a| {
            let flags = a.get_downlevel_capabilities().flags;
            flags.contains(
                wgpu::DownlevelFlags::COMPUTE_SHADERS | wgpu::DownlevelFlags::INDIRECT_EXECUTION,
            )
        })
        .filter(|a| match &wanted {
            Some(name) => a.get_info().name.to_lowercase().contains(name),
            None => true,
        })
        .collect();
    adapters.sort_by_key(|a| {
        let info = a.get_info();
        let kind = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        let backend = match info.backend {
            wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
            _ => 1,
        };
        (kind, backend)
    });
    Ok(adapters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indirect_arguments_stay_within_the_limit() {
        // The most workgroups a list of u32 items needs, one thread an item, as
        // dispatch_for lays them out (dispatch_size is its host twin): both sides within
        // the limit a device must have (DISPATCH_WIDTH, checked in
        // GpuContext::from_device), itself within WebGPU's default.
        let (x, y) = crate::layout::packed::dispatch_size(u32::MAX);
        assert!(x <= DISPATCH_WIDTH && y <= DISPATCH_WIDTH, "{x} x {y}");
        // sweep_long_args: a workgroup per slot of its task list, 4-byte slots in a
        // binding under 4 GiB.
        let (x, y) = crate::layout::packed::workgroup_grid(1 << 30);
        assert!(x <= DISPATCH_WIDTH && y <= DISPATCH_WIDTH, "{x} x {y}");
        assert!(DISPATCH_WIDTH < wgpu::Limits::default().max_compute_workgroups_per_dimension);
    }

    #[test]
    fn the_instance_checks_indirect_arguments_only_when_asked() {
        let flags = |v: Option<&str>| instance_descriptor(v.map(Into::into)).flags;
        assert!(!flags(None).contains(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL));
        // With the variable set, wgpu's own reading of it decides (from_env).
        let asked = flags(Some("1"));
        let env = wgpu::InstanceDescriptor::new_without_display_handle_from_env().flags;
        assert_eq!(asked, env);
    }
}
