//! The init's settings, from the environment LocalStack gives the container.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::http::Endpoint;

/// Where the runtime interface emulator looks for the bootstrap, in order.
pub const BOOTSTRAP_PATHS: [&str; 3] = [
    "/var/task/bootstrap",
    "/opt/bootstrap",
    "/var/runtime/bootstrap",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub endpoint: Endpoint,
    pub runtime_id: String,
    /// Where LocalStack sends invocations (`0.0.0.0:9563`).
    pub interop: SocketAddr,
    /// Where the bootstrap finds the Runtime API (`127.0.0.1:9001`).
    pub runtime_api: SocketAddr,
    pub timeout: Duration,
    pub version: String,
    pub memory_mb: u64,
    /// The bootstrap's command line.
    pub bootstrap: Vec<String>,
    /// `LOCALSTACK_CHMOD_PATHS`: paths and octal modes to set before starting.
    pub chmod: Vec<(String, u32)>,
}

impl Config {
    /// From LocalStack's environment (`var`) and the init's arguments (the
    /// bootstrap's command line, when given).
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
        args: Vec<String>,
    ) -> Result<Self, String> {
        let required = |name: &str| {
            var(name)
                .filter(|v| !v.is_empty())
                .ok_or(format!("{name} is not set"))
        };
        let port = |name: &str, default: u16| -> Result<u16, String> {
            var(name).map_or(Ok(default), |v| {
                v.parse().map_err(|_| format!("{name}={v:?} is not a port"))
            })
        };
        let timeout: f64 = match var("AWS_LAMBDA_FUNCTION_TIMEOUT") {
            None => 3.0,
            Some(v) => v
                .parse()
                .ok()
                .filter(|t: &f64| t.is_finite() && *t > 0.0)
                .ok_or(format!(
                    "AWS_LAMBDA_FUNCTION_TIMEOUT={v:?} is not a number of seconds"
                ))?,
        };
        let bootstrap = if args.is_empty() {
            let found = BOOTSTRAP_PATHS.iter().find(|p| Path::new(p).exists());
            vec![found
                .ok_or(format!(
                    "no bootstrap: none of {} exists",
                    BOOTSTRAP_PATHS.join(", ")
                ))?
                .to_string()]
        } else {
            args
        };
        Ok(Self {
            endpoint: Endpoint::parse(&required("LOCALSTACK_RUNTIME_ENDPOINT")?)?,
            runtime_id: required("LOCALSTACK_RUNTIME_ID")?,
            interop: SocketAddr::from(([0, 0, 0, 0], port("LOCALSTACK_INTEROP_PORT", 9563)?)),
            // Not LocalStack's: lets tests run beside another init.
            runtime_api: SocketAddr::from((
                [127, 0, 0, 1],
                port("LOCALSTACK_RUNTIME_API_PORT", 9001)?,
            )),
            timeout: Duration::from_secs_f64(timeout),
            version: var("AWS_LAMBDA_FUNCTION_VERSION").unwrap_or_else(|| "$LATEST".into()),
            memory_mb: var("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
                .and_then(|v| v.parse().ok())
                .unwrap_or(128),
            bootstrap,
            chmod: var("LOCALSTACK_CHMOD_PATHS").map_or(Ok(Vec::new()), |v| chmod_paths(&v))?,
        })
    }
}

/// `[{"path": "/tmp", "mode": "0700"}, ...]`.
fn chmod_paths(json: &str) -> Result<Vec<(String, u32)>, String> {
    let bad = || format!("LOCALSTACK_CHMOD_PATHS={json:?} is not a list of {{path, mode}}");
    let list: Vec<serde_json::Value> = serde_json::from_str(json).map_err(|_| bad())?;
    list.iter()
        .map(|entry| {
            let path = entry.get("path").and_then(|p| p.as_str()).ok_or_else(bad)?;
            let mode = entry.get("mode").and_then(|m| m.as_str()).ok_or_else(bad)?;
            let mode = u32::from_str_radix(mode, 8).map_err(|_| bad())?;
            Ok((path.to_string(), mode))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    const BASE: [(&str, &str); 2] = [
        (
            "LOCALSTACK_RUNTIME_ENDPOINT",
            "http://10.0.0.1:4566/_localstack_lambda/abc",
        ),
        ("LOCALSTACK_RUNTIME_ID", "abc"),
    ];

    #[test]
    fn localstacks_environment_configures_the_init() {
        let mut vars = BASE.to_vec();
        vars.extend([
            ("AWS_LAMBDA_FUNCTION_TIMEOUT", "30"),
            ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256"),
            (
                "LOCALSTACK_CHMOD_PATHS",
                r#"[{"path": "/tmp", "mode": "0700"}]"#,
            ),
        ]);
        let config = Config::from_env(env(&vars), vec!["/bin/true".into()]).unwrap();
        assert_eq!(config.endpoint.prefix, "/_localstack_lambda/abc");
        assert_eq!(config.interop.port(), 9563);
        assert_eq!(config.runtime_api.to_string(), "127.0.0.1:9001");
        assert_eq!(config.timeout, Duration::from_secs(30));
        assert_eq!(
            (config.memory_mb, config.version.as_str()),
            (256, "$LATEST")
        );
        assert_eq!(config.chmod, [("/tmp".to_string(), 0o700)]);
        assert_eq!(config.bootstrap, ["/bin/true"]);
    }

    #[test]
    fn a_missing_or_malformed_setting_is_an_error_that_names_it() {
        let args = || vec!["/bin/true".to_string()];
        let err = Config::from_env(env(&BASE[..1]), args()).unwrap_err();
        assert!(err.contains("LOCALSTACK_RUNTIME_ID"), "{err}");
        for (name, value) in [
            ("AWS_LAMBDA_FUNCTION_TIMEOUT", "soon"),
            ("LOCALSTACK_INTEROP_PORT", "99999"),
            (
                "LOCALSTACK_CHMOD_PATHS",
                "[{\"path\": \"/tmp\", \"mode\": \"rwx\"}]",
            ),
        ] {
            let mut vars = BASE.to_vec();
            vars.push((name, value));
            let err = Config::from_env(env(&vars), args()).unwrap_err();
            assert!(err.contains(name), "{err}");
        }
    }
}
