//! `Outputs`, resolved to strings for the caller (a bench driver reads API
//! URLs from them).

use std::collections::BTreeMap;

use crate::context::ResolveContext;
use crate::diag::At;
use crate::model::Application;
use crate::props::Reader;
use crate::scope::{Cause, ResolveError};
use crate::yaml::Entry;

/// Resolved outputs, and the export name of those that export. One that
/// cannot be resolved locally (it names a role SAM would generate, say) is
/// left out with a warning rather than failing.
pub(crate) fn outputs(
    section: Option<&Entry>,
    app: &Application,
    r: &mut Reader,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut out = BTreeMap::new();
    let mut exports = BTreeMap::new();
    for e in section.and_then(|s| s.value.map()).unwrap_or_default() {
        let at = At::section("Outputs").child(&e.key);
        let known = ["Value", "Description", "Export", "Condition"];
        for k in e.value.map().unwrap_or_default() {
            if !known.contains(&k.key.as_str()) {
                r.diags
                    .error(&at.child(&k.key), k.key_line, "unknown output attribute");
            }
        }
        if let Some(c) = e.value.get("Condition").and_then(|c| c.value.text()) {
            if r.scope.condition(c, e.key_line) != Ok(true) {
                continue;
            }
        }
        let Some(value) = e.value.get("Value") else {
            r.diags.error(&at, e.key_line, "an output needs a Value");
            continue;
        };
        if let Some(name) = e.value.get("Export").and_then(|x| x.value.get("Name")) {
            match r.scope.string(&name.value) {
                Ok(name) => {
                    exports.insert(e.key.clone(), name);
                }
                Err(err) => r.report(&at.child("Export.Name"), name.key_line, err),
            }
        }
        match r.scope.string(&value.value) {
            Ok(s) => {
                out.insert(e.key.clone(), localise_api_urls(s, app, r.scope.ctx));
            }
            // A missing export fails the stack on AWS too.
            Err(ResolveError::Invalid {
                message,
                line,
                cause: Cause::NoExport,
                ..
            }) => r.diags.error(&at, line, message),
            Err(ResolveError::Invalid { message, line, .. }) => {
                r.diags
                    .warn(&at, line, format!("not available locally: {message}"))
            }
            Err(ResolveError::Pending(what)) => r.diags.warn(
                &at,
                value.key_line,
                format!("not available locally: {what}"),
            ),
        }
    }
    (out, exports)
}

/// Rewrites `https://{api}.execute-api.{region}.{suffix}[/stage]` to the
/// local endpoint of that API (HTTP or REST; a REST API's stage follows in
/// the output as written).
fn localise_api_urls(s: String, app: &Application, ctx: &ResolveContext) -> String {
    let http = app.http_apis.iter().map(|a| (&a.api_id, &a.url));
    let rest = app.rest_apis.iter().map(|a| (&a.api_id, &a.url));
    http.chain(rest)
        .fold(s, |s, (id, url)| s.replace(&ctx.aws_api_url(id), url))
}
