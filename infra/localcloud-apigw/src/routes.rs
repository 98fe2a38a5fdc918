//! The route table of one HTTP API, as data. AWS picks the most specific
//! route: literal segments beat `{param}` segments, which beat a greedy
//! `{proxy+}`; a method-specific route beats `ANY`; `$default` comes last.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use crate::config::{ConfigError, RouteConfig};
use crate::text::percent_decode;

const METHODS: &[&str] = &[
    "ANY", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param(String),
    Greedy(String),
}

impl Segment {
    /// Lower is more specific.
    fn rank(&self) -> u8 {
        match self {
            Segment::Literal(_) => 0,
            Segment::Param(_) => 1,
            Segment::Greedy(_) => 2,
        }
    }
}

#[derive(Debug, Clone)]
struct Route {
    key: String,
    /// The path as declared, `/pets/{id}` (a REST API's `resource`).
    path: String,
    /// `None` for `ANY`.
    method: Option<String>,
    segments: Vec<Segment>,
    function: String,
    timeout: Option<Duration>,
}

#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    routes: Vec<Route>,
    default: Option<Route>,
}

/// The route a request landed on, with its path parameters (URL-decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteMatch<'a> {
    pub route_key: &'a str,
    /// The declared path, `/pets/{id}`.
    pub resource: &'a str,
    pub function: &'a str,
    pub path_parameters: BTreeMap<String, String>,
    /// The route's integration timeout, when it has its own.
    pub timeout: Option<Duration>,
}

impl RouteTable {
    pub fn new(api: &str, configs: &[RouteConfig]) -> Result<Self, ConfigError> {
        let mut table = RouteTable::default();
        let mut keys = HashSet::new();
        for config in configs {
            let route = parse_route(api, config)?;
            if !keys.insert(route.key.clone()) {
                return Err(ConfigError::DuplicateRoute {
                    api: api.to_string(),
                    route: route.key,
                });
            }
            if config.path == "$default" {
                table.default = Some(route);
            } else {
                table.routes.push(route);
            }
        }
        Ok(table)
    }

    /// The best route for `method` and `path` (the path without the stage
    /// prefix and without the query string), or `None` (404).
    pub fn find(&self, method: &str, path: &str) -> Option<RouteMatch<'_>> {
        self.find_with(Some(method), path)
    }

    /// The best route for `path` whatever its method (a REST API's resource:
    /// its `OPTIONS` method answers CORS preflights for every method).
    pub fn find_resource(&self, path: &str) -> Option<RouteMatch<'_>> {
        self.find_with(None, path)
    }

    /// The methods declared on the resource `path` (`ANY` included as is).
    pub fn methods_of(&self, resource: &str) -> Vec<&str> {
        self.routes
            .iter()
            .filter(|r| r.path == resource)
            .map(|r| r.method.as_deref().unwrap_or("ANY"))
            .collect()
    }

    fn find_with(&self, method: Option<&str>, path: &str) -> Option<RouteMatch<'_>> {
        let segments: Vec<String> = path
            .strip_prefix('/')
            .unwrap_or(path)
            .split('/')
            .map(percent_decode)
            .collect();
        let best = self
            .routes
            .iter()
            .filter(|r| method.is_none_or(|method| r.method.as_deref().is_none_or(|m| m == method)))
            .filter_map(|r| match_segments(&r.segments, &segments).map(|p| (r, p)))
            .min_by(|(a, _), (b, _)| specificity(a, b));
        if let Some((route, path_parameters)) = best {
            return Some(RouteMatch {
                route_key: &route.key,
                resource: &route.path,
                function: &route.function,
                path_parameters,
                timeout: route.timeout,
            });
        }
        self.default.as_ref().map(|route| RouteMatch {
            route_key: &route.key,
            resource: &route.path,
            function: &route.function,
            path_parameters: BTreeMap::new(),
            timeout: route.timeout,
        })
    }
}

/// `/{stage}/pets` -> `/pets` (`/{stage}` -> `/`); `None` when the path
/// does not start with the stage.
pub fn strip_stage<'a>(path: &'a str, stage: &str) -> Option<&'a str> {
    let rest = path.strip_prefix('/')?.strip_prefix(stage)?;
    match rest {
        "" => Some("/"),
        r if r.starts_with('/') => Some(r),
        _ => None,
    }
}

fn specificity(a: &Route, b: &Route) -> Ordering {
    let ranks = |r: &Route| r.segments.iter().map(Segment::rank).collect::<Vec<_>>();
    ranks(a)
        .cmp(&ranks(b))
        .then_with(|| a.method.is_none().cmp(&b.method.is_none()))
}

fn match_segments(route: &[Segment], path: &[String]) -> Option<BTreeMap<String, String>> {
    let mut params = BTreeMap::new();
    for (i, segment) in route.iter().enumerate() {
        match segment {
            Segment::Greedy(name) => {
                let rest = path.get(i..)?.join("/");
                if rest.is_empty() {
                    return None;
                }
                params.insert(name.clone(), rest);
                return Some(params);
            }
            Segment::Literal(literal) => {
                if path.get(i)? != literal {
                    return None;
                }
            }
            Segment::Param(name) => {
                let value = path.get(i).filter(|v| !v.is_empty())?;
                params.insert(name.clone(), value.clone());
            }
        }
    }
    (route.len() == path.len()).then_some(params)
}

fn parse_route(api: &str, config: &RouteConfig) -> Result<Route, ConfigError> {
    let invalid = |reason: &str| ConfigError::Route {
        api: api.to_string(),
        route: config.route_key(),
        reason: reason.to_string(),
    };
    let method = config.method.to_ascii_uppercase();
    if !METHODS.contains(&method.as_str()) {
        return Err(invalid("unknown method"));
    }
    let method = (method != "ANY").then_some(method);
    if config.path == "$default" {
        return Ok(Route {
            key: config.route_key(),
            path: config.path.clone(),
            method: None,
            segments: Vec::new(),
            function: config.function.clone(),
            timeout: config.timeout,
        });
    }
    let Some(rest) = config.path.strip_prefix('/') else {
        return Err(invalid("path must start with /"));
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let mut segments = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        segments.push(parse_segment(part, i + 1 == parts.len()).map_err(&invalid)?);
    }
    Ok(Route {
        key: config.route_key(),
        path: config.path.clone(),
        method,
        segments,
        function: config.function.clone(),
        timeout: config.timeout,
    })
}

fn parse_segment(part: &str, last: bool) -> Result<Segment, &'static str> {
    let Some(inner) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) else {
        if part.contains(['{', '}']) {
            return Err("a path variable must be a whole segment");
        }
        return Ok(Segment::Literal(part.to_string()));
    };
    if let Some(name) = inner.strip_suffix('+') {
        if !last {
            return Err("a greedy path variable must be the last segment");
        }
        return valid_name(name).map(|n| Segment::Greedy(n.to_string()));
    }
    valid_name(inner).map(|n| Segment::Param(n.to_string()))
}

fn valid_name(name: &str) -> Result<&str, &'static str> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err("path variable names are letters, digits and _");
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(routes: &[(&str, &str, &str)]) -> RouteTable {
        let configs: Vec<RouteConfig> = routes
            .iter()
            .map(|(m, p, f)| RouteConfig::new(m, p, f))
            .collect();
        RouteTable::new("Api", &configs).unwrap()
    }

    fn function_for<'a>(table: &'a RouteTable, method: &str, path: &str) -> Option<&'a str> {
        table.find(method, path).map(|m| m.function)
    }

    #[test]
    fn exact_path_beats_parameter_which_beats_greedy() {
        let t = table(&[
            ("GET", "/pets/{proxy+}", "greedy"),
            ("GET", "/pets/{id}", "param"),
            ("GET", "/pets/dog", "exact"),
        ]);
        assert_eq!(function_for(&t, "GET", "/pets/dog"), Some("exact"));
        assert_eq!(function_for(&t, "GET", "/pets/cat"), Some("param"));
        assert_eq!(function_for(&t, "GET", "/pets/cat/toys"), Some("greedy"));
    }

    #[test]
    fn method_specific_route_beats_any_on_the_same_path() {
        let t = table(&[("ANY", "/items", "any"), ("POST", "/items", "post")]);
        assert_eq!(function_for(&t, "POST", "/items"), Some("post"));
        assert_eq!(function_for(&t, "DELETE", "/items"), Some("any"));
    }

    #[test]
    fn default_route_catches_only_what_nothing_else_matches() {
        let t = table(&[("ANY", "$default", "fallback"), ("GET", "/a", "a")]);
        assert_eq!(function_for(&t, "GET", "/a"), Some("a"));
        let m = t.find("PUT", "/a").unwrap();
        assert_eq!((m.function, m.route_key), ("fallback", "$default"));
    }

    #[test]
    fn no_matching_route_and_no_default_is_none() {
        let t = table(&[("GET", "/a", "a")]);
        assert_eq!(t.find("GET", "/b"), None);
        assert_eq!(t.find("POST", "/a"), None);
        assert_eq!(t.find("GET", "/a/b"), None);
    }

    #[test]
    fn path_parameters_are_extracted_and_url_decoded() {
        let t = table(&[("GET", "/api/articles/{slug}/comments/{id}", "c")]);
        let m = t
            .find("GET", "/api/articles/hello%20world/comments/42")
            .unwrap();
        assert_eq!(m.route_key, "GET /api/articles/{slug}/comments/{id}");
        assert_eq!(m.path_parameters["slug"], "hello world");
        assert_eq!(m.path_parameters["id"], "42");
    }

    #[test]
    fn greedy_parameter_takes_the_rest_of_the_path_but_not_nothing() {
        let t = table(&[("ANY", "/{proxy+}", "proxy")]);
        let m = t.find("GET", "/api/articles/feed").unwrap();
        assert_eq!(m.path_parameters["proxy"], "api/articles/feed");
        assert_eq!(t.find("GET", "/"), None);
    }

    #[test]
    fn parameter_does_not_match_an_empty_segment() {
        let t = table(&[("GET", "/profiles/{username}", "p")]);
        assert_eq!(t.find("GET", "/profiles/"), None);
    }

    #[test]
    fn more_specific_leading_segment_wins_between_parameter_routes() {
        let t = table(&[
            ("GET", "/{a}/b/c", "late-literal"),
            ("GET", "/a/{b}/c", "early-literal"),
        ]);
        assert_eq!(function_for(&t, "GET", "/a/b/c"), Some("early-literal"));
    }

    #[test]
    fn invalid_routes_are_rejected() {
        for (method, path) in [
            ("GET", "no-slash"),
            ("GET", "/{proxy+}/tail"),
            ("GET", "/a{b}"),
            ("GET", "/{}"),
            ("FETCH", "/a"),
        ] {
            let result = RouteTable::new("Api", &[RouteConfig::new(method, path, "f")]);
            assert!(result.is_err(), "{method} {path} should be rejected");
        }
    }

    #[test]
    fn duplicate_route_keys_are_rejected() {
        let routes = [
            RouteConfig::new("get", "/a", "f"),
            RouteConfig::new("GET", "/a", "g"),
        ];
        assert!(matches!(
            RouteTable::new("Api", &routes),
            Err(ConfigError::DuplicateRoute { .. })
        ));
    }
}
