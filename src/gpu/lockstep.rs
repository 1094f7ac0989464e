//! The loop cap of llvmpipe, the software adapter: it runs invocations in lockstep
//! groups, and a kernel's loop budget holds only for groups no wider than the kernels
//! were sized for.

use crate::error::Error;
use crate::layout::packed::LLVMPIPE_LANES;

/// Invocations an llvmpipe adapter runs in lockstep, from the vector width its name
/// gives (`llvmpipe (LLVM 15.0.6, 256 bits)` runs 8 lanes of 32 bits); `None` for
/// other adapters, which have no loop cap.
pub fn llvmpipe_lanes(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("llvmpipe")?;
    let bits = rest.split(" bits").next()?.rsplit([' ', ',', '(']).next()?;
    bits.parse::<u32>().ok().map(|bits| (bits / 32).max(1))
}

/// Refuses an llvmpipe whose lockstep groups are wider than the kernels' loop budgets
/// allow for ([`LLVMPIPE_LANES`]): its answers could be cut short without an error.
pub(crate) fn check_lockstep_lanes(info: &wgpu::AdapterInfo) -> Result<(), Error> {
    match llvmpipe_lanes(&info.name) {
        Some(lanes) if lanes > LLVMPIPE_LANES => Err(Error::TooManyLanes {
            adapter: info.name.clone(),
            lanes,
            supported: LLVMPIPE_LANES,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(name: &str) -> wgpu::AdapterInfo {
        let mut info = wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Vulkan);
        info.name = name.into();
        info
    }

    #[test]
    fn llvmpipe_lanes_come_from_the_vector_width_in_its_name() {
        assert_eq!(llvmpipe_lanes("llvmpipe (LLVM 15.0.6, 256 bits)"), Some(8));
        assert_eq!(llvmpipe_lanes("llvmpipe (LLVM 19.1.7, 512 bits)"), Some(16));
        assert_eq!(llvmpipe_lanes("llvmpipe (LLVM 12.0.0, 128 bits)"), Some(4));
        assert_eq!(llvmpipe_lanes("NVIDIA GeForce RTX 4090"), None);
        assert_eq!(llvmpipe_lanes("llvmpipe"), None);
    }

    #[test]
    fn an_llvmpipe_wider_than_the_budgets_is_refused_by_name() {
        assert!(check_lockstep_lanes(&adapter("llvmpipe (LLVM 15.0.6, 256 bits)")).is_ok());
        assert!(check_lockstep_lanes(&adapter("AMD Radeon RX 7900 XTX")).is_ok());
        let error = check_lockstep_lanes(&adapter("llvmpipe (LLVM 19.1.7, 512 bits)"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("16 invocations in lockstep"), "{error}");
        assert!(error.contains("LP_NATIVE_VECTOR_WIDTH=256"), "{error}");
    }
}
