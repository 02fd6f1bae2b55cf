//! The determinism manifest, `spec/manifest.toml`, compiled in.

use crate::Tier;
use serde::Deserialize;

/// The manifest text.
pub const TEXT: &str = include_str!("../../../spec/manifest.toml");

/// One property.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Property {
    /// Kebab-case id; also the name of its check.
    pub id: String,
    /// What holds.
    pub statement: String,
    /// Spec section.
    pub spec: String,
    /// Backends it applies to.
    pub backends: Vec<String>,
    /// The lowest tier that runs it.
    pub tier: Tier,
    /// The conformance check (`crates/conformance/src/checks/...::function`).
    pub check: String,
    /// CI tests that also check it.
    #[serde(default)]
    pub tests: Vec<String>,
}

/// The whole manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Properties in report order.
    pub property: Vec<Property>,
}

impl<'de> Deserialize<'de> for Tier {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Parses the compiled-in manifest.
pub fn load() -> Manifest {
    parse(TEXT).expect("spec/manifest.toml is checked by a unit test")
}

/// Parses manifest text.
pub fn parse(text: &str) -> Result<Manifest, toml::de::Error> {
    toml::from_str(text)
}
