//! The dated, versioned price table (`loadtest/prices/aws-prices.csv`).
//!
//! The file is plain CSV without quoting (no field may contain a comma), with `#`
//! comment lines and one required `# version: ...` line. The default table is
//! embedded at compile time; another file can replace it at run time.

use serde::Serialize;

use crate::error::{CostError, Result};

/// The table shipped with the crate.
pub const DEFAULT_PRICES_CSV: &str = include_str!("../../prices/aws-prices.csv");

const HEADER: [&str; 11] = [
    "region",
    "architecture",
    "service",
    "item",
    "kind",
    "unit",
    "quantity",
    "usd",
    "monthly_from",
    "effective_date",
    "source",
];

/// Architecture value of a line that applies to every architecture.
pub const ANY_ARCHITECTURE: &str = "any";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// `usd` dollars per `quantity` units.
    Price,
    /// `quantity` units free per month and per account.
    FreeTier,
    /// `quantity` is the size of one billed unit, or a factor.
    Metering,
}

impl LineKind {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "price" => Some(Self::Price),
            "free_tier" => Some(Self::FreeTier),
            "metering" => Some(Self::Metering),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Price => "price",
            Self::FreeTier => "free_tier",
            Self::Metering => "metering",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceLine {
    pub region: String,
    pub architecture: String,
    pub service: String,
    pub item: String,
    pub kind: LineKind,
    pub unit: String,
    pub quantity: f64,
    pub usd: Option<f64>,
    /// Volume tier: the price applies to the month's units beyond this many (0 = the
    /// first tier, the price of every unit until a higher tier starts).
    pub monthly_from: f64,
    pub effective_date: String,
    pub source: String,
}

impl PriceLine {
    /// Dollars for one unit (0 for lines that are not prices).
    pub fn usd_per_unit(&self) -> f64 {
        self.usd.unwrap_or(0.0) / self.quantity
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PriceTable {
    version: String,
    lines: Vec<PriceLine>,
}

impl PriceTable {
    /// The embedded table. It is checked by the crate's tests, so parsing cannot fail
    /// in a tested build.
    pub fn aws_default() -> Self {
        Self::parse(DEFAULT_PRICES_CSV).expect("the embedded price table is valid")
    }

    /// Reads a replacement table from a file.
    pub fn from_path(path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|error| CostError::PriceTableRead {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Result<Self> {
        let mut version = None;
        let mut header_seen = false;
        let mut lines: Vec<PriceLine> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if let Some(comment) = line.strip_prefix('#') {
                if let Some(value) = comment.trim().strip_prefix("version:") {
                    version = Some(value.trim().to_string());
                }
                continue;
            }
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if !header_seen {
                if fields != HEADER {
                    return Err(syntax(
                        number,
                        format!("header must be `{}`", HEADER.join(",")),
                    ));
                }
                header_seen = true;
                continue;
            }
            let parsed = parse_line(&fields).map_err(|message| syntax(number, message))?;
            if lines.iter().any(|other| same_key(other, &parsed)) {
                return Err(syntax(number, "duplicate line (same key and date)".into()));
            }
            lines.push(parsed);
        }
        let version = version
            .filter(|v| !v.is_empty())
            .ok_or_else(|| syntax(1, "missing `# version: ...` comment".into()))?;
        if lines.is_empty() {
            return Err(syntax(1, "no price lines".into()));
        }
        Ok(Self { version, lines })
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn lines(&self) -> &[PriceLine] {
        &self.lines
    }

    pub fn regions(&self) -> Vec<String> {
        let mut regions: Vec<String> = self.lines.iter().map(|l| l.region.clone()).collect();
        regions.sort();
        regions.dedup();
        regions
    }

    /// The lines of one region as they stood on `as_of` (YYYY-MM-DD; `None` = newest).
    pub fn region(&self, region: &str, as_of: Option<&str>) -> Result<RegionPrices<'_>> {
        if !self.lines.iter().any(|l| l.region == region) {
            return Err(CostError::UnknownRegion {
                region: region.to_string(),
                available: self.regions(),
            });
        }
        if let Some(date) = as_of {
            if !is_date(date) {
                return Err(CostError::InvalidUsage(format!(
                    "price date `{date}` is not YYYY-MM-DD"
                )));
            }
        }
        Ok(RegionPrices {
            table: self,
            region: region.to_string(),
            as_of: as_of.map(str::to_string),
        })
    }
}

/// One region's prices at one date: the lookups the cost model makes.
#[derive(Debug, Clone)]
pub struct RegionPrices<'a> {
    table: &'a PriceTable,
    region: String,
    as_of: Option<String>,
}

impl<'a> RegionPrices<'a> {
    pub fn region(&self) -> &str {
        &self.region
    }

    pub fn as_of(&self) -> Option<&str> {
        self.as_of.as_deref()
    }

    pub fn table_version(&self) -> &str {
        self.table.version()
    }

    /// A line that applies to every architecture.
    pub fn get(&self, service: &str, item: &str, kind: LineKind) -> Result<&'a PriceLine> {
        self.find(service, item, kind, None)
    }

    /// A line for one architecture (an `any` line also matches).
    pub fn get_for(
        &self,
        service: &str,
        item: &str,
        kind: LineKind,
        architecture: &str,
    ) -> Result<&'a PriceLine> {
        self.find(service, item, kind, Some(architecture))
    }

    /// Like [`Self::get`], but `None` when the table has no such line.
    pub fn optional(&self, service: &str, item: &str, kind: LineKind) -> Option<&'a PriceLine> {
        self.get(service, item, kind).ok()
    }

    /// Every line of `kind` in effect, the newest per service, item, architecture and tier.
    pub fn all_of_kind(&self, kind: LineKind) -> Vec<&'a PriceLine> {
        let mut newest: Vec<&'a PriceLine> = Vec::new();
        let in_effect = self.table.lines.iter().filter(|l| {
            l.region == self.region
                && l.kind == kind
                && self
                    .as_of
                    .as_deref()
                    .is_none_or(|d| l.effective_date.as_str() <= d)
        });
        for line in in_effect {
            let same = |other: &&PriceLine| {
                other.service == line.service
                    && other.item == line.item
                    && other.architecture == line.architecture
                    && other.monthly_from == line.monthly_from
            };
            match newest.iter_mut().find(|other| same(other)) {
                Some(kept) if kept.effective_date < line.effective_date => *kept = line,
                Some(_) => {}
                None => newest.push(line),
            }
        }
        newest
    }

    /// The volume tiers of a price, by ascending `monthly_from` (the first tier first).
    pub fn tiers(&self, service: &str, item: &str, architecture: &str) -> Vec<&'a PriceLine> {
        let mut tiers: Vec<&'a PriceLine> = self
            .all_of_kind(LineKind::Price)
            .into_iter()
            .filter(|l| l.service == service && l.item == item && l.architecture == architecture)
            .collect();
        tiers.sort_by(|a, b| a.monthly_from.total_cmp(&b.monthly_from));
        tiers
    }

    fn find(
        &self,
        service: &str,
        item: &str,
        kind: LineKind,
        architecture: Option<&str>,
    ) -> Result<&'a PriceLine> {
        let in_effect: Vec<&'a PriceLine> = self
            .table
            .lines
            .iter()
            .filter(|l| l.region == self.region && l.service == service && l.item == item)
            .filter(|l| l.kind == kind && l.monthly_from == 0.0)
            .filter(|l| {
                self.as_of
                    .as_deref()
                    .is_none_or(|d| l.effective_date.as_str() <= d)
            })
            .collect();
        let wanted = architecture.unwrap_or(ANY_ARCHITECTURE);
        let newest = |arch: &str| {
            in_effect
                .iter()
                .filter(|l| l.architecture == arch)
                .max_by(|a, b| a.effective_date.cmp(&b.effective_date))
                .copied()
        };
        if let Some(line) = newest(wanted).or_else(|| newest(ANY_ARCHITECTURE)) {
            return Ok(line);
        }
        let what = format!("{service}.{item} in {}", self.region);
        if in_effect.is_empty() {
            return Err(CostError::MissingItem {
                what: format!("{} line for {what}", kind.as_str()),
                as_of: self.as_of.clone(),
            });
        }
        let mut available: Vec<String> = in_effect.iter().map(|l| l.architecture.clone()).collect();
        available.sort();
        available.dedup();
        Err(CostError::UnknownArchitecture {
            architecture: wanted.to_string(),
            item: what,
            available,
        })
    }
}

fn syntax(line: usize, message: String) -> CostError {
    CostError::PriceTableSyntax { line, message }
}

fn same_key(a: &PriceLine, b: &PriceLine) -> bool {
    a.region == b.region
        && a.architecture == b.architecture
        && a.service == b.service
        && a.item == b.item
        && a.kind == b.kind
        && a.monthly_from == b.monthly_from
        && a.effective_date == b.effective_date
}

fn parse_line(fields: &[&str]) -> std::result::Result<PriceLine, String> {
    let [region, architecture, service, item, kind, unit, quantity, usd, from, date, source] =
        fields
    else {
        return Err(format!(
            "expected {} comma-separated fields, found {}",
            HEADER.len(),
            fields.len()
        ));
    };
    for (name, value) in [
        ("region", region),
        ("architecture", architecture),
        ("service", service),
        ("item", item),
        ("unit", unit),
        ("source", source),
    ] {
        if value.is_empty() {
            return Err(format!("empty {name}"));
        }
    }
    let kind = LineKind::parse(kind)
        .ok_or_else(|| format!("kind `{kind}` is not price, free_tier or metering"))?;
    let quantity = parse_number("quantity", quantity)?;
    if quantity <= 0.0 {
        return Err("quantity must be positive".into());
    }
    let usd = match (kind, usd.is_empty()) {
        (LineKind::Price, true) => return Err("a price line needs usd".into()),
        (LineKind::Price, false) => Some(parse_number("usd", usd)?),
        (_, true) => None,
        (_, false) => return Err(format!("a {} line has no usd", kind.as_str())),
    };
    let monthly_from = match (kind, from.is_empty()) {
        (_, true) => 0.0,
        (LineKind::Price, false) => parse_number("monthly_from", from)?,
        (_, false) => return Err(format!("a {} line has no monthly_from", kind.as_str())),
    };
    if !is_date(date) {
        return Err(format!("effective_date `{date}` is not YYYY-MM-DD"));
    }
    Ok(PriceLine {
        region: region.to_string(),
        architecture: architecture.to_string(),
        service: service.to_string(),
        item: item.to_string(),
        kind,
        unit: unit.to_string(),
        quantity,
        usd,
        monthly_from,
        effective_date: date.to_string(),
        source: source.to_string(),
    })
}

fn parse_number(name: &str, text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("{name} `{text}` is not a non-negative number")),
    }
}

/// YYYY-MM-DD with a plausible month and day; enough to keep dates comparable as text.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let shape_ok = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
    if !shape_ok {
        return false;
    }
    let month: u32 = text[5..7].parse().unwrap_or(0);
    let day: u32 = text[8..10].parse().unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

#[cfg(test)]
#[path = "prices_tests.rs"]
mod tests;
