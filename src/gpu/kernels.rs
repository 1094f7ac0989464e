//! A stage's kernels as its WGSL module declares them. When a stage is compiled, naga
//! parses and validates its composed module once ([`reflect`]) and gives, for each
//! compute entry point, the bindings of the variables it uses (directly or through the
//! functions it calls). The stage looks up by name each kernel it dispatches, into a
//! [`Kernel`] handle kept for every later dispatch (a stage's [`KernelNames`]); only
//! those kernels are compiled, and each is bound exactly the buffers it uses, found in
//! the stage's table of which buffer sits at which binding number.

use super::buffers::{Buffers, Slot};
use crate::error::Error;

/// A compute entry point of a module and the binding numbers (all in group 0) of the
/// variables it uses, in increasing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryBindings {
    /// The entry point's name.
    pub name: String,
    /// The bindings it uses.
    pub bindings: Vec<u32>,
}

/// Parses and validates the WGSL module `source` with naga and lists its compute entry
/// points, in the module's order, each with the bindings it uses; or naga's report of
/// what is wrong with the module.
pub fn reflect(source: &str) -> Result<Vec<EntryBindings>, String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(source))?;
    let entries = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.stage == naga::ShaderStage::Compute)
        .map(|(index, entry)| {
            let uses = info.get_entry_point(index);
            let mut bindings: Vec<u32> = module
                .global_variables
                .iter()
                .filter(|(handle, _)| !uses[*handle].is_empty())
                .filter_map(|(_, var)| var.binding.as_ref().map(|b| b.binding))
                .collect();
            bindings.sort_unstable();
            EntryBindings {
                name: entry.name.clone(),
                bindings,
            }
        })
        .collect();
    Ok(entries)
}

/// One kernel a stage compiled: a handle found once by name ([`KernelFinder::find`]),
/// then used for every dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kernel(usize);

/// Looks up a stage's kernels by name among its module's entry points, noting each one
/// found: those, in the order first found, are the kernels the stage compiles.
#[derive(Debug)]
pub(crate) struct KernelFinder<'a> {
    entries: &'a [EntryBindings],
    chosen: Vec<usize>,
}

impl KernelFinder<'_> {
    /// The kernel of the entry point `name`; an error names it where the module has none.
    pub(crate) fn find(&mut self, name: &str) -> Result<Kernel, String> {
        let at = self
            .entries
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| format!("no kernel `{name}`"))?;
        let k = match self.chosen.iter().position(|&c| c == at) {
            Some(k) => k,
            None => {
                self.chosen.push(at);
                self.chosen.len() - 1
            }
        };
        Ok(Kernel(k))
    }
}

/// The kernels a stage dispatches, as handles found by name in its module.
pub(crate) trait KernelNames: Sized {
    /// Finds each kernel the stage dispatches, in the order the stage runs them.
    fn find(kernels: &mut KernelFinder) -> Result<Self, String>;
}

/// What compiling a stage from `source` would give, without a device: its kernels'
/// handles, and each kernel it compiles with the bindings it uses, in handle order.
/// Fails where the module is not valid WGSL, lacks a kernel the stage dispatches, or
/// has a kernel the stage compiles use a binding `table` lacks (which would leave a
/// hole in the kernel's bind group).
pub(crate) fn plan<N: KernelNames, S>(
    source: &str,
    table: &[(u32, S)],
) -> Result<(N, Vec<EntryBindings>), String> {
    let entries = reflect(source)?;
    let mut finder = KernelFinder {
        entries: &entries,
        chosen: Vec::new(),
    };
    let named = N::find(&mut finder)?;
    let kernels: Vec<EntryBindings> = finder
        .chosen
        .iter()
        .map(|&at| entries[at].clone())
        .collect();
    for kernel in &kernels {
        if let Some(binding) = kernel
            .bindings
            .iter()
            .find(|&&b| !table.iter().any(|(number, _)| *number == b))
        {
            return Err(format!(
                "kernel `{}` uses binding {binding}, which the host's table lacks",
                kernel.name
            ));
        }
    }
    Ok((named, kernels))
}

/// How every kernel is compiled: with its workgroup memory zeroed before the first
/// invocation runs, as WGSL promises and wgpu does by default. The kernels that sum into
/// workgroup memory (`bounds`) count on it rather than clearing the memory themselves:
/// their own clearing cost a second barrier per
/// workgroup, which llvmpipe pays as a switch between the workgroup's invocations
/// (measured: the bounds stage of bullet-hell 100k took 10% longer).
fn kernel_options() -> wgpu::PipelineCompilationOptions<'static> {
    wgpu::PipelineCompilationOptions {
        zero_initialize_workgroup_memory: true,
        ..Default::default()
    }
}

/// The compiled kernels of one module: those its [`KernelNames`] `N` found, with the
/// handles in `named`, and the table `S` of which buffer sits at each binding number.
#[derive(Debug)]
pub(crate) struct StageKernels<N, S: 'static = Slot> {
    /// The handles of the kernels, by name.
    pub(crate) named: N,
    kernels: Vec<EntryBindings>,
    table: &'static [(u32, S)],
    pipelines: Vec<wgpu::ComputePipeline>,
}

/// Bind groups of a module's kernels, by [`Kernel`]; `None` for a kernel that reads the
/// caller's buffer, bound frame by frame ([`StageKernels::bind_one`]).
#[derive(Debug)]
pub(crate) struct StageGroups(Vec<Option<wgpu::BindGroup>>);

impl<N: KernelNames, S: Copy> StageKernels<N, S> {
    /// Compiles the kernels `N` names from the module `source` (labelled `label`), after
    /// finding their bindings ([`plan`]).
    pub(crate) fn new(
        device: &wgpu::Device,
        label: &str,
        source: String,
        table: &'static [(u32, S)],
    ) -> Result<Self, Error> {
        let (named, kernels) = plan::<N, S>(&source, table)
            .map_err(|e| Error::Gpu(format!("the {label} shader: {e}")))?;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipelines = kernels
            .iter()
            .map(|k| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&k.name),
                    layout: None,
                    module: &module,
                    entry_point: Some(&k.name),
                    compilation_options: kernel_options(),
                    cache: None,
                })
            })
            .collect();
        Ok(StageKernels {
            named,
            kernels,
            table,
            pipelines,
        })
    }
}

impl<N, S: Copy> StageKernels<N, S> {
    /// The buffer at `binding` in this module's table.
    fn slot(&self, binding: u32) -> Option<S> {
        self.table
            .iter()
            .find(|(number, _)| *number == binding)
            .map(|&(_, slot)| slot)
    }

    /// The bind group of kernel `k`, with `caller` for the bindings `resolve` gives no
    /// buffer (where `caller` is `None`, they are left out, and wgpu's validation reports
    /// the hole as an error value).
    fn group<'a>(
        &self,
        device: &wgpu::Device,
        k: usize,
        resolve: impl Fn(S) -> Option<wgpu::BindingResource<'a>>,
    ) -> wgpu::BindGroup {
        let kernel = &self.kernels[k];
        let entries: Vec<wgpu::BindGroupEntry> = kernel
            .bindings
            .iter()
            .filter_map(|&binding| {
                let resource = resolve(self.slot(binding)?)?;
                Some(wgpu::BindGroupEntry { binding, resource })
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&kernel.name),
            layout: &self.pipelines[k].get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Binds every kernel with the buffer `resolve` gives for each slot (for the
    /// queries and the contact pass, whose buffers are not all the collider's
    /// [`Buffers`]).
    pub(crate) fn bind_all_with<'a>(
        &self,
        device: &wgpu::Device,
        resolve: impl Fn(S) -> Option<&'a wgpu::Buffer>,
    ) -> StageGroups {
        let resolve = |slot: S| resolve(slot).map(|buffer| buffer.as_entire_binding());
        StageGroups(
            (0..self.kernels.len())
                .map(|k| Some(self.group(device, k, resolve)))
                .collect(),
        )
    }

    /// Dispatches kernel `k` over `(x, y)` workgroups, where it has a bind group in
    /// `groups`.
    pub(crate) fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass,
        groups: &StageGroups,
        k: Kernel,
        (x, y): (u32, u32),
    ) {
        if let Some(group) = &groups.0[k.0] {
            self.dispatch_with(pass, group, k, (x, y));
        }
    }

    /// Dispatches every kernel that has a bind group in `groups` over no workgroups: a
    /// driver that builds a pipeline's machine code at its first dispatch (llvmpipe
    /// does) builds it now instead of in a frame. On other drivers it costs nothing.
    pub(crate) fn warm_up(&self, pass: &mut wgpu::ComputePass, groups: &StageGroups) {
        for k in 0..self.kernels.len() {
            self.dispatch(pass, groups, Kernel(k), (0, 1));
        }
    }

    /// Dispatches kernel `k` over `(x, y)` workgroups with the bind group `group`.
    pub(crate) fn dispatch_with(
        &self,
        pass: &mut wgpu::ComputePass,
        group: &wgpu::BindGroup,
        k: Kernel,
        (x, y): (u32, u32),
    ) {
        pass.set_pipeline(&self.pipelines[k.0]);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Dispatches kernel `k` with the workgroup counts the GPU wrote into slot `slot`
    /// (an `ARGS_*` constant) of `args`.
    pub(crate) fn dispatch_indirect(
        &self,
        pass: &mut wgpu::ComputePass,
        groups: &StageGroups,
        k: Kernel,
        args: &wgpu::Buffer,
        slot: u32,
    ) {
        pass.set_pipeline(&self.pipelines[k.0]);
        pass.set_bind_group(0, groups.0[k.0].as_ref(), &[]);
        let offset =
            slot as u64 * std::mem::size_of::<crate::layout::packed::DispatchArgs>() as u64;
        pass.dispatch_workgroups_indirect(args, offset);
    }
}

impl<N> StageKernels<N, Slot> {
    /// Binds, for every kernel, the buffers at its binding numbers; a kernel that reads
    /// the caller's buffer is left unbound.
    pub(crate) fn bind(&self, device: &wgpu::Device, buffers: &Buffers) -> StageGroups {
        let groups = (0..self.kernels.len())
            .map(|k| {
                let caller_bound = self.kernels[k]
                    .bindings
                    .iter()
                    .any(|&binding| self.slot(binding) == Some(Slot::Source));
                (!caller_bound).then(|| self.bind_one(device, buffers, Kernel(k), None))
            })
            .collect();
        StageGroups(groups)
    }

    /// The bind group of kernel `k`, with `caller` at the binding the table leaves to it.
    pub(crate) fn bind_one(
        &self,
        device: &wgpu::Device,
        buffers: &Buffers,
        k: Kernel,
        caller: Option<wgpu::BufferBinding>,
    ) -> wgpu::BindGroup {
        let resolve = |slot: Slot| match buffers.get(slot) {
            Some(buffer) => Some(buffer.as_entire_binding()),
            None => caller.clone().map(wgpu::BindingResource::Buffer),
        };
        self.group(device, k.0, resolve)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "
        @group(0) @binding(0) var<storage, read> input: array<u32>;
        @group(0) @binding(3) var<storage, read_write> output: array<u32>;
        @group(0) @binding(5) var<uniform> scale: vec4<u32>;

        fn scaled(k: u32) -> u32 {
            return input[k] * scale.x;
        }

        @compute @workgroup_size(64)
        fn copy(@builtin(global_invocation_id) id: vec3<u32>) {
            output[id.x] = scaled(id.x);
        }

        @compute @workgroup_size(64)
        fn clear(@builtin(global_invocation_id) id: vec3<u32>) {
            output[id.x] = 0u;
        }
    ";

    #[derive(Debug)]
    struct Both {
        clear: Kernel,
        copy: Kernel,
    }

    impl KernelNames for Both {
        fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
            Ok(Both {
                clear: kernels.find("clear")?,
                copy: kernels.find("copy")?,
            })
        }
    }

    #[derive(Debug)]
    struct Missing;

    impl KernelNames for Missing {
        fn find(kernels: &mut KernelFinder) -> Result<Self, String> {
            kernels.find("copy")?;
            kernels.find("scale")?;
            Ok(Missing)
        }
    }

    #[test]
    fn bindings_include_those_reached_through_called_functions() {
        let entries = reflect(SOURCE).expect("valid");
        let found: Vec<(&str, &[u32])> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.bindings.as_slice()))
            .collect();
        assert_eq!(found, [("copy", &[0, 3, 5][..]), ("clear", &[3][..])]);
    }

    #[test]
    fn kernels_are_compiled_in_the_order_the_stage_finds_them() {
        let table = [(0, ()), (3, ()), (5, ())];
        let (named, kernels) = plan::<Both, ()>(SOURCE, &table).expect("planned");
        assert_eq!((named.clear, named.copy), (Kernel(0), Kernel(1)));
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["clear", "copy"]);
    }

    #[test]
    fn a_binding_missing_from_the_table_is_an_error_naming_it() {
        let table = [(0, ()), (3, ())];
        let error = plan::<Both, ()>(SOURCE, &table).unwrap_err();
        assert_eq!(
            error,
            "kernel `copy` uses binding 5, which the host's table lacks"
        );
    }

    #[test]
    fn a_kernel_missing_from_the_module_is_an_error_naming_it() {
        let table = [(0, ()), (3, ()), (5, ())];
        let error = plan::<Missing, ()>(SOURCE, &table).unwrap_err();
        assert_eq!(error, "no kernel `scale`");
    }

    #[test]
    fn an_invalid_module_is_an_error() {
        let error = reflect("fn broken( {").unwrap_err();
        assert!(error.contains("error"), "{error}");
    }
}
