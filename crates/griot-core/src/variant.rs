//! Variant strings: `id` or `id(key=value,...)`, with a canonical form that lists only the options
//! differing from their defaults, sorted by key. The canonical string is the variant's identity
//! everywhere: API, tasks, cache keys, logs, CLI, files.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::VariantError;

/// Default hard limit on the number of turns in a game.
pub const DEFAULT_MAX_TURNS: i64 = 2000;

/// Default occurrence of a position that ends the game (see [`OptionSpec::repetitions`]).
pub const DEFAULT_REPETITIONS: i64 = 3;

/// The value of a variant option.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OptionValue {
    /// An integer.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// What an option accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// Integers in an inclusive range.
    Range(i64, i64),
    /// Integers from a fixed set.
    OneOf(Vec<i64>),
    /// A boolean.
    Bool,
}

/// One option a variant accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The option's key.
    pub name: String,
    /// Its default value.
    pub default: OptionValue,
    /// What values it accepts.
    pub allowed: Allowed,
    /// One line saying what it does.
    pub description: String,
}

impl OptionSpec {
    /// An integer option.
    pub fn int(name: &str, default: i64, allowed: Allowed, description: &str) -> Self {
        OptionSpec {
            name: name.into(),
            default: OptionValue::Int(default),
            allowed,
            description: description.into(),
        }
    }

    /// A boolean option.
    pub fn flag(name: &str, default: bool, description: &str) -> Self {
        OptionSpec {
            name: name.into(),
            default: OptionValue::Bool(default),
            allowed: Allowed::Bool,
            description: description.into(),
        }
    }

    /// The option every game has: the hard turn limit.
    pub fn max_turns() -> Self {
        OptionSpec::int(
            "max_turns",
            DEFAULT_MAX_TURNS,
            Allowed::Range(1, 1_000_000),
            "hard limit on the number of turns; reaching it ends the game as an endless cycle",
        )
    }

    /// The option of the games whose rules end a game by repeating a position: the occurrence
    /// of a position that ends the game as an endless cycle. 3 by default (the rules' reading);
    /// 2 ends it at the first repetition, as some engines and match runners do.
    pub fn repetitions() -> Self {
        OptionSpec::int(
            "repetitions",
            DEFAULT_REPETITIONS,
            Allowed::Range(2, 3),
            "the occurrence of a position that ends the game as an endless cycle (2: its first repetition)",
        )
    }

    fn parse_value(&self, text: &str) -> Result<OptionValue, VariantError> {
        let bad = |message: String| VariantError::BadOption { option: self.name.clone(), message };
        match &self.allowed {
            Allowed::Bool => match text {
                "true" => Ok(OptionValue::Bool(true)),
                "false" => Ok(OptionValue::Bool(false)),
                _ => Err(bad(format!("{text:?} is not true or false"))),
            },
            Allowed::Range(lo, hi) => {
                let v: i64 = text.parse().map_err(|_| bad(format!("{text:?} is not an integer")))?;
                if v < *lo || v > *hi {
                    return Err(bad(format!("{v} is outside {lo}..={hi}")));
                }
                Ok(OptionValue::Int(v))
            }
            Allowed::OneOf(values) => {
                let v: i64 = text.parse().map_err(|_| bad(format!("{text:?} is not an integer")))?;
                if !values.contains(&v) {
                    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                    return Err(bad(format!("{v} is not one of {}", list.join(", "))));
                }
                Ok(OptionValue::Int(v))
            }
        }
    }
}

/// A parsed variant string before its options are checked against a game: the id and the raw
/// `key=value` pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantSpec {
    /// The id, e.g. `abapa`.
    pub id: String,
    /// Options in the order given.
    pub options: Vec<(String, String)>,
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'
}

impl VariantSpec {
    /// Parses `id` or `id(key=value,...)`. Checks syntax only.
    pub fn parse(text: &str) -> Result<VariantSpec, VariantError> {
        let text = text.trim();
        let syntax = |m: String| VariantError::Syntax(m);
        let (id, rest) = match text.find('(') {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        if id.is_empty() {
            return Err(syntax("the variant id is empty".into()));
        }
        if let Some(c) = id.chars().find(|&c| !is_id_char(c)) {
            return Err(syntax(format!("{c:?} is not allowed in a variant id (use a-z, 0-9, '-', '_')")));
        }
        let mut options = Vec::new();
        if let Some(rest) = rest {
            let inner = rest
                .strip_suffix(')')
                .ok_or_else(|| syntax(format!("{text:?} has '(' without a closing ')' at the end")))?;
            if !inner.trim().is_empty() {
                for part in inner.split(',') {
                    let (k, v) = part
                        .split_once('=')
                        .ok_or_else(|| syntax(format!("option {part:?} is not key=value")))?;
                    let (k, v) = (k.trim(), v.trim());
                    if k.is_empty() || !k.chars().all(is_id_char) {
                        return Err(syntax(format!("option key {k:?} is not valid")));
                    }
                    if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                        return Err(syntax(format!("option {k}: value {v:?} is not valid")));
                    }
                    if options.iter().any(|(kk, _): &(String, String)| kk == k) {
                        return Err(syntax(format!("option {k} is given twice")));
                    }
                    options.push((k.to_string(), v.to_string()));
                }
            }
        }
        Ok(VariantSpec { id: id.to_string(), options })
    }
}

/// A variant: a game id with every option resolved. Displays as its canonical string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    id: String,
    options: BTreeMap<String, OptionValue>,
    defaults: BTreeMap<String, OptionValue>,
    canonical: String,
}

impl Variant {
    /// Checks `spec`'s options against `specs` and fills in defaults.
    pub fn resolve(spec: &VariantSpec, specs: &[OptionSpec]) -> Result<Variant, VariantError> {
        let mut options = BTreeMap::new();
        let mut defaults = BTreeMap::new();
        for s in specs {
            options.insert(s.name.clone(), s.default.clone());
            defaults.insert(s.name.clone(), s.default.clone());
        }
        for (k, v) in &spec.options {
            let s = specs.iter().find(|s| &s.name == k).ok_or_else(|| {
                let known: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
                VariantError::BadOption {
                    option: k.clone(),
                    message: format!("{} has no such option (it has: {})", spec.id, known.join(", ")),
                }
            })?;
            options.insert(k.clone(), s.parse_value(v)?);
        }
        Ok(Variant::from_parts(spec.id.clone(), options, defaults))
    }

    /// Resolves `spec` for a game with a reading: the flag option `flag` (a source's reading of
    /// the game, e.g. `ludii`) changes the defaults of the options in `reading`. One game may then
    /// be spelled with the flag or without it (`bechi(ludii=true)` and
    /// `bechi(chain_max=6,first_pass_starts=true)`); its canonical string is the spelling with
    /// fewer options (without the flag on a tie), so that every spelling of the same rules has the
    /// same canonical string, and shares its cache entries and position keys.
    pub fn resolve_with_reading(
        spec: &VariantSpec,
        specs: &[OptionSpec],
        flag: &str,
        reading: &[(&str, OptionValue)],
    ) -> Result<Variant, VariantError> {
        let mut read_specs = specs.to_vec();
        for s in read_specs.iter_mut() {
            if let Some((_, v)) = reading.iter().find(|(name, _)| *name == s.name) {
                s.default = v.clone();
            }
        }
        let only_flag = VariantSpec {
            id: spec.id.clone(),
            options: spec.options.iter().filter(|(k, _)| k == flag).cloned().collect(),
        };
        let asked = Variant::resolve(&only_flag, specs)?.flag(flag);
        let rules = Variant::resolve(spec, if asked { &read_specs } else { specs })?;
        let spelled = |on: bool, with: &[OptionSpec]| {
            let mut options = rules.options.clone();
            options.insert(flag.to_string(), OptionValue::Bool(on));
            let defaults = with.iter().map(|s| (s.name.clone(), s.default.clone())).collect();
            Variant::from_parts(spec.id.clone(), options, defaults)
        };
        let (without, with) = (spelled(false, specs), spelled(true, &read_specs));
        let listed = |v: &Variant| v.options.iter().filter(|(k, v2)| v.defaults.get(*k) != Some(*v2)).count();
        Ok(if listed(&with) < listed(&without) { with } else { without })
    }

    fn from_parts(
        id: String,
        options: BTreeMap<String, OptionValue>,
        defaults: BTreeMap<String, OptionValue>,
    ) -> Variant {
        let non_default: Vec<String> = options
            .iter()
            .filter(|(k, v)| defaults.get(*k) != Some(*v))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let canonical =
            if non_default.is_empty() { id.clone() } else { format!("{id}({})", non_default.join(",")) };
        Variant { id, options, defaults, canonical }
    }

    /// The game id, e.g. `abapa`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The canonical variant string, e.g. `abapa(holes=4,seeds=3)`.
    pub fn canonical(&self) -> &str {
        &self.canonical
    }

    /// Every option with its value (defaults included).
    pub fn options(&self) -> &BTreeMap<String, OptionValue> {
        &self.options
    }

    /// An integer option. Panics if the game did not declare it: a programming error.
    pub fn int(&self, name: &str) -> i64 {
        match self.options.get(name) {
            Some(OptionValue::Int(i)) => *i,
            other => panic!("variant {} has no integer option {name} ({other:?})", self.id),
        }
    }

    /// A boolean option. Panics if the game did not declare it: a programming error.
    pub fn flag(&self, name: &str) -> bool {
        match self.options.get(name) {
            Some(OptionValue::Bool(b)) => *b,
            other => panic!("variant {} has no boolean option {name} ({other:?})", self.id),
        }
    }

    /// The hard turn limit.
    pub fn max_turns(&self) -> u32 {
        self.int("max_turns") as u32
    }

    /// The occurrence of a position that ends the game ([`OptionSpec::repetitions`]); the
    /// default for games without the option.
    pub fn repetitions(&self) -> u32 {
        match self.options.get("repetitions") {
            Some(OptionValue::Int(i)) => *i as u32,
            _ => DEFAULT_REPETITIONS as u32,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec::int("holes", 6, Allowed::Range(1, 18), "holes per row"),
            OptionSpec::int("seeds", 4, Allowed::Range(1, 20), "seeds per hole"),
            OptionSpec::max_turns(),
        ]
    }

    #[test]
    fn canonical_drops_defaults_and_sorts() {
        let spec = VariantSpec::parse("abapa(seeds=3,holes=4,max_turns=2000)").unwrap();
        let v = Variant::resolve(&spec, &specs()).unwrap();
        assert_eq!(v.canonical(), "abapa(holes=4,seeds=3)");
        assert_eq!(v.int("holes"), 4);
        let v = Variant::resolve(&VariantSpec::parse("abapa").unwrap(), &specs()).unwrap();
        assert_eq!(v.canonical(), "abapa");
        assert_eq!(v.int("seeds"), 4);
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(matches!(VariantSpec::parse("abapa(holes=4"), Err(VariantError::Syntax(_))));
        assert!(matches!(VariantSpec::parse("Abapa"), Err(VariantError::Syntax(_))));
        assert!(matches!(VariantSpec::parse("abapa(holes)"), Err(VariantError::Syntax(_))));
        assert!(matches!(VariantSpec::parse("abapa(holes=4,holes=5)"), Err(VariantError::Syntax(_))));
        let e = Variant::resolve(&VariantSpec::parse("abapa(holes=40)").unwrap(), &specs()).unwrap_err();
        assert_eq!(
            e,
            VariantError::BadOption { option: "holes".into(), message: "40 is outside 1..=18".into() }
        );
        let e = Variant::resolve(&VariantSpec::parse("abapa(colour=red)").unwrap(), &specs()).unwrap_err();
        assert!(matches!(e, VariantError::BadOption { option, .. } if option == "colour"));
    }
}
