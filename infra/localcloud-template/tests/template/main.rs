//! Behaviour of the SAM template reader, one module per area.

mod capacity;
mod errors;
mod function_scaling;
mod functions;
mod intrinsics;
mod lmi_version;
mod resources;
mod rest;
mod rest_version;
mod robustness;
mod sample;
mod versions;

use localcloud_template::{load_str, Application, Diagnostic, ResolveContext, Severity};

pub const SAM: &str = "Transform: AWS::Serverless-2016-10-31\n";

pub fn ctx() -> ResolveContext {
    ResolveContext {
        stack_name: "test".into(),
        account_id: "123456789012".into(),
        region: "eu-west-1".into(),
        ..ResolveContext::default()
    }
}

/// Loads a template (the SAM transform line is prepended), failing the test
/// with every problem listed when it does not load.
pub fn load(body: &str) -> Application {
    load_with(body, &ctx())
}

pub fn load_with(body: &str, ctx: &ResolveContext) -> Application {
    load_str(&format!("{SAM}{body}"), ctx).unwrap_or_else(|e| panic!("{e}"))
}

/// The errors of a template that must not load.
pub fn errors(body: &str) -> Vec<Diagnostic> {
    errors_with(body, &ctx())
}

pub fn errors_with(body: &str, ctx: &ResolveContext) -> Vec<Diagnostic> {
    match load_str(&format!("{SAM}{body}"), ctx) {
        Ok(_) => panic!("template loaded but should not have"),
        Err(e) => {
            let problems = e.problems().to_vec();
            assert!(problems.iter().all(|p| p.severity == Severity::Error));
            problems
        }
    }
}

/// The one diagnostic whose message contains `needle`.
pub fn find<'a>(diags: &'a [Diagnostic], needle: &str) -> &'a Diagnostic {
    diags
        .iter()
        .find(|d| d.message.contains(needle) || d.path.contains(needle))
        .unwrap_or_else(|| panic!("no diagnostic about `{needle}` in {diags:#?}"))
}

/// Line numbers below count the `Transform` line that `load` prepends as 1.
pub const FIRST_LINE: usize = 2;
