//! A stand-in `XDG_RUNTIME_DIR` while the process's GPU device opens.
//!
//! Mesa's Vulkan device-select layer, loaded into every Vulkan instance, asks libwayland
//! for the compositor's GPU when the instance enables VK_KHR_wayland_surface, which wgpu
//! always does. With `XDG_RUNTIME_DIR` unset (a container, ssh, cron, CI) libwayland then
//! prints `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on stderr,
//! twice, which a Python user reads as the package failing. With the variable naming an
//! empty directory, libwayland finds no compositor socket there and fails quietly; the
//! layer's choice of devices is the same either way. The `gpu-collide` binary does the
//! same for its whole run.
//!
//! Here the process is the user's, so the change lasts only while the device opens (the
//! only time an instance is made and its adapters listed): then the variable is unset
//! again and the directory removed, and the environment Python code and child processes
//! see is as it was. A value the user set, whatever it is, is left alone.

use std::ffi::OsString;
use std::path::PathBuf;

/// The private directory and the variable pointing at it, undone on drop.
pub(crate) struct RuntimeDir {
    dir: PathBuf,
    /// The variable's value before (unset, or set but empty).
    before: Option<OsString>,
}

impl RuntimeDir {
    /// Creates an empty directory of mode 0700 and points `XDG_RUNTIME_DIR` at it, when
    /// the variable is unset or empty. `None` when nothing needed doing, or no directory
    /// could be made (the message then appears, which is harmless).
    ///
    /// Call it with the GIL held, as the device is opened: no Python thread runs while the
    /// environment changes, and the extension's own threads are not started yet.
    #[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
    pub(crate) fn provide() -> Option<Self> {
        use std::os::unix::fs::DirBuilderExt;
        let before = std::env::var_os("XDG_RUNTIME_DIR");
        if before.as_ref().is_some_and(|value| !value.is_empty()) {
            return None;
        }
        let pid = std::process::id();
        // `create`, not `create_all`: a directory already there is not ours; a few names
        // get past one left behind by an earlier process with the same id.
        let dir = (0..8).find_map(|k| {
            let dir = std::env::temp_dir().join(format!("gpu-collide-runtime-{pid}-{k}"));
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&dir)
                .ok()
                .map(|()| dir)
        })?;
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
        Some(RuntimeDir { dir, before })
    }

    /// Nothing to do where there is no Wayland.
    #[cfg(not(all(unix, not(target_vendor = "apple"), not(target_os = "android"))))]
    pub(crate) fn provide() -> Option<Self> {
        None
    }
}

impl Drop for RuntimeDir {
    fn drop(&mut self) {
        match &self.before {
            Some(value) => std::env::set_var("XDG_RUNTIME_DIR", value),
            None => std::env::remove_var("XDG_RUNTIME_DIR"),
        }
        // `remove_dir` only removes it empty: anything inside was not put there by us.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(all(test, unix, not(target_vendor = "apple"), not(target_os = "android")))]
mod tests {
    use super::RuntimeDir;

    /// One test touches the variable, so no other test of this binary races it.
    #[test]
    fn the_variable_is_provided_only_when_unset_and_put_back_after() {
        let saved = std::env::var_os("XDG_RUNTIME_DIR");
        std::env::remove_var("XDG_RUNTIME_DIR");
        let provided = RuntimeDir::provide().expect("a directory in the temporary directory");
        let dir = std::env::var_os("XDG_RUNTIME_DIR").expect("the variable set");
        assert_eq!(dir, provided.dir.as_os_str());
        let meta = std::fs::metadata(&dir).expect("the directory exists");
        use std::os::unix::fs::PermissionsExt;
        assert!(meta.is_dir() && meta.permissions().mode() & 0o777 == 0o700);
        drop(provided);
        assert_eq!(std::env::var_os("XDG_RUNTIME_DIR"), None);
        assert!(!std::path::Path::new(&dir).exists());

        // Empty counts as unset, and comes back empty.
        std::env::set_var("XDG_RUNTIME_DIR", "");
        drop(RuntimeDir::provide().expect("provided for an empty value"));
        assert_eq!(std::env::var_os("XDG_RUNTIME_DIR"), Some("".into()));

        // Any value of the user's stays, even one libwayland would refuse.
        std::env::set_var("XDG_RUNTIME_DIR", "relative");
        assert!(RuntimeDir::provide().is_none());
        assert_eq!(std::env::var_os("XDG_RUNTIME_DIR"), Some("relative".into()));

        match saved {
            Some(value) => std::env::set_var("XDG_RUNTIME_DIR", value),
            None => std::env::remove_var("XDG_RUNTIME_DIR"),
        }
    }
}
