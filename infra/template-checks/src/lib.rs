//! Checks of the project's `template.yaml` against the workspace, and of the
//! repository's documents, used by this crate's tests (and callable from
//! others):
//! - [`docs`]: README and docs name only files a clone has;
//! - [`imports`]: no file-level import circle in any crate;
//! - [`workspace`]: the binaries the template builds exist as cargo targets;
//! - [`routes`]: a request that exercises each HTTP API route.

pub mod docs;
pub mod imports;
pub mod routes;
pub mod workspace;

use std::path::{Path, PathBuf};

use localcloud_template::{Application, ResolveContext, TemplateError};

/// The workspace root (where `template.yaml` and the root `Cargo.toml` are).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root exists")
}

/// The project's `template.yaml`, resolved as the local cloud would (stack
/// `local`, dummy values for `NoEcho` parameters without a default).
pub fn load_template() -> Result<Application, TemplateError> {
    let ctx = ResolveContext {
        generate_no_echo: true,
        ..ResolveContext::default()
    };
    localcloud_template::load(workspace_root().join("template.yaml"), &ctx)
}
