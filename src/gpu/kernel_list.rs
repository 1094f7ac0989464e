//! Every kernel the host compiles and the buffer it binds at each binding, listed
//! without a device so that the tests can hold them against the shaders.

use super::kernels::{self, EntryBindings, KernelNames};
use super::{bounds, broad, contact, narrow, query};
use crate::layout::shaders::{GridBinding, LibraryBinding, Stage};

/// The buffer the host binds at each binding number of each module (a stage's, by
/// [`Stage::name`], or `contact`), as the WGSL variable names it may have; a test
/// checks them against the shaders.
pub fn binding_names() -> Vec<(&'static str, u32, &'static [&'static str])> {
    let stages = [
        (Stage::Bounds, bounds::BINDINGS),
        (Stage::Broad, broad::BINDINGS),
        (Stage::Narrow, narrow::BINDINGS),
        (Stage::Query, query::BINDINGS),
    ]
    .into_iter()
    .flat_map(|(stage, table)| {
        table
            .iter()
            .map(move |&(binding, slot)| (stage.name(), binding, slot.wgsl_names()))
    });
    let contact = contact::BINDINGS
        .iter()
        .map(|&(binding, slot)| ("contact", binding, slot.wgsl_names()));
    stages.chain(contact).collect()
}

/// One kernel the host compiles, as [`kernel_bindings`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelBindings {
    /// Its module: a stage's name ([`Stage::name`]) or `contact`.
    pub module: &'static str,
    /// The forms of the module's variants it was composed with.
    pub forms: (LibraryBinding, GridBinding),
    /// The kernel's entry point and the bindings naga finds it using.
    pub kernel: EntryBindings,
}

/// Every kernel the host compiles, from every module in every form, with the bindings
/// naga finds each using, as compiling the stages would find them but without a
/// device; or the first disagreement between a shader and the host: a module naga
/// rejects, a kernel the host dispatches that its module lacks, or a binding a kernel
/// uses that the module's table ([`binding_names`]) lacks.
pub fn kernel_bindings() -> Result<Vec<KernelBindings>, String> {
    fn rows<N: KernelNames, S>(
        module: &'static str,
        forms: (LibraryBinding, GridBinding),
        source: &str,
        table: &[(u32, S)],
    ) -> Result<Vec<KernelBindings>, String> {
        let (_, kernels) = kernels::plan::<N, S>(source, table)
            .map_err(|e| format!("{module}, {forms:?}: {e}"))?;
        Ok(kernels
            .into_iter()
            .map(|kernel| KernelBindings {
                module,
                forms,
                kernel,
            })
            .collect())
    }
    let mut all = Vec::new();
    for library in LibraryBinding::ALL {
        let storage = (library, GridBinding::Storage);
        let source = |stage: Stage| stage.source_with(library);
        all.extend(rows::<bounds::Kernels, _>(
            "bounds",
            storage,
            &source(Stage::Bounds),
            bounds::BINDINGS,
        )?);
        all.extend(rows::<narrow::Kernels, _>(
            "narrow",
            storage,
            &source(Stage::Narrow),
            narrow::BINDINGS,
        )?);
        all.extend(rows::<query::Kernels, _>(
            "query",
            storage,
            &source(Stage::Query),
            query::BINDINGS,
        )?);
        all.extend(rows::<contact::Kernels, _>(
            "contact",
            storage,
            &crate::layout::shaders::contact_source(library),
            contact::BINDINGS,
        )?);
    }
    for grid in GridBinding::ALL {
        let forms = (LibraryBinding::Storage, grid);
        all.extend(rows::<broad::Kernels, _>(
            "broad",
            forms,
            &Stage::Broad.source_for(forms.0, grid),
            broad::BINDINGS,
        )?);
    }
    Ok(all)
}
