//! The front door as a bench dimension (issue 16): every variant can be
//! measured behind an HTTP API (`template.yaml`) or a REST API
//! (`template-rest.yaml`: the same functions, the APIs as REST APIs with
//! stage `Prod` in their URLs), or both in one run, one pass per kind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::compute::ComputeType;
pub use localcloud_metrics::ApiKind;

/// The API kinds the bench can put in front of a variant.
pub const BENCH_KINDS: [ApiKind; 2] = [ApiKind::Http, ApiKind::Rest];

/// One pass of a run: the kind of API in front, the template the local
/// cloud serves, and (remote targets) the base URLs by API logical id.
#[derive(Debug, Clone, PartialEq)]
pub struct Door {
    pub api: ApiKind,
    /// Where the functions run (`--compute`).
    pub compute: ComputeType,
    pub template: PathBuf,
    pub urls: BTreeMap<String, String>,
    /// Remote targets: the orders table of this door's stack, seeded before
    /// the orders runs (`OrdersTableName` of its outputs, or `--orders-table`).
    pub orders_table: Option<String>,
}

/// `--api`: `http`, `rest`, `http,rest` or `both`, in the order given.
pub fn parse_kinds(text: &str) -> anyhow::Result<Vec<ApiKind>> {
    if text.trim() == "both" {
        return Ok(BENCH_KINDS.to_vec());
    }
    let mut kinds = Vec::new();
    for name in text.split(',').map(str::trim) {
        let kind = kind_named(name)
            .with_context(|| format!("--api takes http, rest, http,rest or both; got {name:?}"))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

fn kind_named(name: &str) -> Option<ApiKind> {
    BENCH_KINDS.into_iter().find(|k| k.as_str() == name)
}

/// How a run's title names its door: nothing for an HTTP API (the
/// template's own), the kind otherwise.
pub fn title_note(api: ApiKind) -> &'static str {
    match api {
        ApiKind::Http => "",
        ApiKind::Rest => " (REST API)",
        ApiKind::FunctionUrl => " (function URL)",
    }
}

/// The kind in words, for reports.
pub fn describe(api: ApiKind) -> &'static str {
    match api {
        ApiKind::Http => "HTTP API",
        ApiKind::Rest => "REST API",
        ApiKind::FunctionUrl => "function URL",
    }
}

/// Where the URLs of each door come from (remote targets), as given on the
/// command line: `--stack-outputs [KIND:]FILE`, `--url [KIND:]VARIANT=URL`.
pub struct DoorArgs<'a> {
    pub kinds: &'a [ApiKind],
    /// `--compute`: a pass per type, each through every kind.
    pub computes: &'a [ComputeType],
    pub template: &'a Path,
    pub rest_template: &'a Path,
    /// The Lambda Managed Instances version (`localcloud lmi-template`).
    pub lmi_template: &'a Path,
    pub stack_outputs: &'a [String],
    pub urls: &'a [String],
    /// `--orders-table [KIND:]NAME`.
    pub orders_tables: &'a [String],
}

/// A door per compute type and kind asked, with its template and its URLs.
pub fn doors(args: &DoorArgs<'_>) -> anyhow::Result<Vec<Door>> {
    let mut doors = Vec::new();
    for &compute in args.computes {
        for &api in args.kinds {
            let template = match (compute, api) {
                (ComputeType::OnDemand, ApiKind::Rest) => args.rest_template,
                (ComputeType::OnDemand, _) => args.template,
                (ComputeType::Managed, ApiKind::Http) => args.lmi_template,
                (ComputeType::Managed, other) => bail!(
                    "--compute managed runs behind HTTP APIs only: template-lmi.yaml has no {} version",
                    describe(other)
                ),
            };
            doors.push(door(args, api, compute, template)?);
        }
    }
    Ok(doors)
}

/// One door: its template, and the URLs and orders table given for its kind.
fn door(
    args: &DoorArgs<'_>,
    api: ApiKind,
    compute: ComputeType,
    template: &Path,
) -> anyhow::Result<Door> {
    let mut urls = BTreeMap::new();
    let mut orders_table = None;
    for file in for_kind(args.stack_outputs, api, args.kinds, "--stack-outputs")? {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {file}"))?;
        let document =
            serde_json::from_str(&text).with_context(|| format!("{file} is not JSON"))?;
        urls.extend(crate::target::api_urls_from_document(&document));
        orders_table = orders_table.or(crate::seed::orders_table_from_document(&document));
    }
    let named = for_kind(args.orders_tables, api, args.kinds, "--orders-table")?;
    if let Some(name) = named.last() {
        orders_table = Some(name.to_string());
    }
    let flags: Vec<String> = for_kind(args.urls, api, args.kinds, "--url")?
        .into_iter()
        .map(String::from)
        .collect();
    urls.extend(crate::target::parse_url_flags(&flags)?);
    Ok(Door {
        api,
        compute,
        template: template.to_path_buf(),
        urls,
        orders_table,
    })
}

/// The values of a repeatable `[KIND:]VALUE` flag that belong to `api`: those
/// prefixed with its kind, and unprefixed ones when only one kind is run (two
/// kinds cannot share a stack: the run would measure one API twice).
pub fn for_kind<'a>(
    values: &'a [String],
    api: ApiKind,
    kinds: &[ApiKind],
    flag: &str,
) -> anyhow::Result<Vec<&'a str>> {
    let mut mine = Vec::new();
    for value in values {
        let prefixed = value
            .split_once(':')
            .and_then(|(prefix, rest)| Some((kind_named(prefix)?, rest)));
        match prefixed {
            Some((kind, _)) if !kinds.contains(&kind) => {
                bail!("{flag} {value}: --api does not run {kind}")
            }
            Some((kind, rest)) => {
                if kind == api {
                    mine.push(rest);
                }
            }
            None if kinds.len() > 1 => bail!(
                "{flag} {value}: with several --api kinds, say which one it is for \
                 ({flag} http:... or {flag} rest:...)"
            ),
            None => mine.push(value.as_str()),
        }
    }
    Ok(mine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_kinds_are_read_in_order_once_each() {
        assert_eq!(parse_kinds("http").unwrap(), [ApiKind::Http]);
        assert_eq!(parse_kinds("rest").unwrap(), [ApiKind::Rest]);
        assert_eq!(
            parse_kinds("rest, http,rest").unwrap(),
            [ApiKind::Rest, ApiKind::Http]
        );
        assert_eq!(parse_kinds("both").unwrap(), [ApiKind::Http, ApiKind::Rest]);
        let err = parse_kinds("http,function_url").unwrap_err().to_string();
        assert!(err.contains("\"function_url\""), "{err}");
    }

    #[test]
    fn a_flag_goes_to_its_kind_and_a_bare_one_only_when_one_kind_runs() {
        let values = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let both = [ApiKind::Http, ApiKind::Rest];
        // GIVEN prefixed values for both kinds
        let prefixed = values(&["http:h.json", "rest:r.json"]);
        // THEN each kind gets its own
        assert_eq!(
            for_kind(&prefixed, ApiKind::Rest, &both, "--stack-outputs").unwrap(),
            ["r.json"]
        );
        // AND a URL's own colons are not a kind
        let url = values(&["orders-direct=https://x/Prod"]);
        assert_eq!(
            for_kind(&url, ApiKind::Rest, &[ApiKind::Rest], "--url").unwrap(),
            ["orders-direct=https://x/Prod"]
        );
        // AND a bare value is refused when two kinds run, as is a kind not run
        let err = for_kind(&url, ApiKind::Http, &both, "--url").unwrap_err();
        assert!(err.to_string().contains("--url http:"), "{err}");
        let err = for_kind(
            &prefixed,
            ApiKind::Http,
            &[ApiKind::Http],
            "--stack-outputs",
        );
        assert!(err.unwrap_err().to_string().contains("does not run rest"));
    }

    #[test]
    fn each_door_serves_its_template_and_keeps_the_stage_of_its_urls() {
        // GIVEN the outputs of a stack deployed from template-rest.yaml
        let dir = tempfile::tempdir().unwrap();
        let outputs = dir.path().join("rest.json");
        std::fs::write(
            &outputs,
            r#"{"Stacks": [{"Outputs": [{"OutputKey": "OrdersDirectUrl",
                "OutputValue": "https://abc.execute-api.us-east-1.amazonaws.com/Prod"},
                {"OutputKey": "OrdersTableName", "OutputValue": "rest-orders"}]}]}"#,
        )
        .unwrap();
        let stack_outputs = [format!("rest:{}", outputs.display())];
        let urls = ["http:orders-direct=http://127.0.0.1:1/".to_string()];
        // WHEN both kinds are asked
        let doors = doors(&DoorArgs {
            kinds: &[ApiKind::Http, ApiKind::Rest],
            computes: &[ComputeType::OnDemand],
            template: Path::new("template.yaml"),
            rest_template: Path::new("template-rest.yaml"),
            lmi_template: Path::new("template-lmi.yaml"),
            stack_outputs: &stack_outputs,
            urls: &urls,
            orders_tables: &["http:http-orders".to_string()],
        })
        .unwrap();
        // THEN the REST door has the REST template and its URL with /Prod
        assert_eq!(doors.len(), 2);
        assert_eq!(doors[0].template, Path::new("template.yaml"));
        assert_eq!(doors[0].urls["OrdersDirectApi"], "http://127.0.0.1:1");
        assert_eq!(doors[1].template, Path::new("template-rest.yaml"));
        assert_eq!(
            doors[1].urls["OrdersDirectApi"],
            "https://abc.execute-api.us-east-1.amazonaws.com/Prod"
        );
        // AND each door seeds its own stack's orders table
        assert_eq!(doors[0].orders_table.as_deref(), Some("http-orders"));
        assert_eq!(doors[1].orders_table.as_deref(), Some("rest-orders"));
    }
}
