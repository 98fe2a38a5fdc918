//! A concrete request path for each route of an HTTP API.

use localcloud_template::Route;

/// The method and path of a request the route answers: `ANY` becomes `GET`,
/// `{param}` becomes `1`, and a greedy `{proxy+}` becomes `proxy_value`
/// (pick one the function serves, e.g. `tags` for Conduit's `/api/{proxy+}`).
/// `None` for `$default`, which has no path of its own.
pub fn sample_request(route: &Route, proxy_value: &str) -> Option<(String, String)> {
    if route.path == "$default" {
        return None;
    }
    let method = match route.method.as_str() {
        "ANY" => "GET".to_string(),
        m => m.to_string(),
    };
    let path = route
        .path
        .split('/')
        .map(|segment| match segment {
            s if s.starts_with('{') && s.ends_with("+}") => proxy_value,
            s if s.starts_with('{') && s.ends_with('}') => "1",
            s => s,
        })
        .collect::<Vec<_>>()
        .join("/");
    Some((method, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(method: &str, path: &str) -> Route {
        Route {
            method: method.into(),
            path: path.into(),
            function: "Fn".into(),
            event: "Api".into(),
            payload_format_version: "2.0".into(),
            timeout_ms: None,
        }
    }

    #[test]
    fn parameters_become_values_and_any_becomes_get() {
        // GIVEN a parametrised route and a greedy one
        let sized = route("GET", "/orders/{size}");
        let greedy = route("ANY", "/api/{proxy+}");
        // WHEN sample requests are made for them
        // THEN parameters are filled in and ANY is sent as GET
        assert_eq!(
            sample_request(&sized, "tags"),
            Some(("GET".into(), "/orders/1".into()))
        );
        assert_eq!(
            sample_request(&greedy, "tags"),
            Some(("GET".into(), "/api/tags".into()))
        );
    }

    #[test]
    fn the_default_route_has_no_sample_path() {
        assert_eq!(sample_request(&route("ANY", "$default"), "x"), None);
    }
}
