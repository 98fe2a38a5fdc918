//! Just enough XML for the REST-XML and query protocols (S3,
//! CloudFormation, STS): an escaping writer, and a reader of the text of
//! named elements (request bodies are flat lists such as
//! `<Part><PartNumber>1</PartNumber>...</Part>`).

/// Escapes text for an element body or attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// A document under construction; elements are written in call order.
#[derive(Default)]
pub struct Xml(String);

impl Xml {
    /// Starts a document whose root element is `root` in namespace `ns`.
    pub fn document(root: &str, ns: &str) -> Self {
        Self(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{root} xmlns=\"{ns}\">"
        ))
    }

    pub fn text(&mut self, name: &str, value: impl AsRef<str>) -> &mut Self {
        let value = escape(value.as_ref());
        self.0.push_str(&format!("<{name}>{value}</{name}>"));
        self
    }

    pub fn open(&mut self, name: &str) -> &mut Self {
        self.0.push_str(&format!("<{name}>"));
        self
    }

    /// Opens `name` with attributes (`xsi:type="Group"`), values escaped.
    pub fn open_with(&mut self, name: &str, attributes: &[(&str, &str)]) -> &mut Self {
        self.0.push_str(&format!("<{name}"));
        for (attribute, value) in attributes {
            self.0
                .push_str(&format!(" {attribute}=\"{}\"", escape(value)));
        }
        self.0.push('>');
        self
    }

    pub fn close(&mut self, name: &str) -> &mut Self {
        self.0.push_str(&format!("</{name}>"));
        self
    }

    pub fn finish(mut self, root: &str) -> String {
        self.0.push_str(&format!("</{root}>"));
        self.0
    }
}

/// The contents of every `<name>...</name>` element (attributes allowed on
/// the opening tag), in document order, unescaped.
pub fn elements(xml: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = find_open(rest, name) {
        let after_open = &rest[start..];
        let Some(gt) = after_open.find('>') else {
            break;
        };
        if after_open[..gt].ends_with('/') {
            out.push(String::new());
            rest = &after_open[gt + 1..];
            continue;
        }
        let body = &after_open[gt + 1..];
        let close = format!("</{name}>");
        let Some(end) = body.find(&close) else {
            break;
        };
        out.push(unescape(&body[..end]));
        rest = &body[end + close.len()..];
    }
    out
}

/// Where `<name` starts as a whole tag name (not `<nameOther`).
fn find_open(xml: &str, name: &str) -> Option<usize> {
    let open = format!("<{name}");
    let mut from = 0;
    while let Some(i) = xml[from..].find(&open) {
        let at = from + i;
        match xml[at + open.len()..].chars().next() {
            Some('>' | ' ' | '/' | '\t' | '\n' | '\r') => return Some(at),
            _ => from = at + open.len(),
        }
    }
    None
}

/// The text of the first `<name>` element, trimmed.
pub fn first(xml: &str, name: &str) -> Option<String> {
    elements(xml, name)
        .into_iter()
        .next()
        .map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_read_in_order_with_attributes_and_entities() {
        let xml = r#"<CompleteMultipartUpload xmlns="x"><Part><PartNumber>1</PartNumber><ETag>&quot;a&quot;</ETag></Part><Part><PartNumber>2</PartNumber><ETag>"b"</ETag></Part></CompleteMultipartUpload>"#;
        assert_eq!(elements(xml, "Part").len(), 2);
        assert_eq!(elements(xml, "PartNumber"), vec!["1", "2"]);
        assert_eq!(elements(xml, "ETag"), vec!["\"a\"", "\"b\""]);
        assert_eq!(first(xml, "Missing"), None);
    }

    #[test]
    fn a_tag_name_is_not_matched_by_its_prefix() {
        let xml = "<KeyMarker>m</KeyMarker><Key>k</Key><Empty/>";
        assert_eq!(elements(xml, "Key"), vec!["k"]);
        assert_eq!(elements(xml, "Empty"), vec![""]);
    }

    #[test]
    fn written_text_is_escaped() {
        let mut doc = Xml::document("R", "ns");
        doc.text("Key", "a<b&c");
        assert!(doc.finish("R").ends_with("<Key>a&lt;b&amp;c</Key></R>"));
    }

    #[test]
    fn attributes_are_written_escaped() {
        let mut doc = Xml::document("R", "ns");
        doc.open_with("G", &[("xsi:type", "a\"b")]).close("G");
        assert!(doc
            .finish("R")
            .ends_with("<G xsi:type=\"a&quot;b\"></G></R>"));
    }
}
