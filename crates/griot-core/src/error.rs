//! Typed errors. Three kinds cross the boundary: text that could not be parsed (notation, variant
//! strings, rule files), a variant that does not exist, and a move that is illegal here.

use std::fmt;

/// Text in Griot notation (a position, a move) that could not be parsed or is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError {
    /// What is wrong and where, e.g. `field 2 (board): hole 7 of South: "x" is not a number`.
    pub message: String,
}

impl NotationError {
    /// An error about the whole text.
    pub fn new(message: impl Into<String>) -> Self {
        NotationError { message: message.into() }
    }

    /// An error about one whitespace-separated field (1-based `index`, with its `name`).
    pub fn field(index: usize, name: &str, message: impl fmt::Display) -> Self {
        NotationError { message: format!("field {index} ({name}): {message}") }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NotationError {}

/// A move that is well formed but not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// A stable machine-readable reason, e.g. `empty_hole`, `must_feed`, `not_own_hole`.
    pub code: &'static str,
    /// A sentence a person can act on.
    pub message: String,
}

impl IllegalMove {
    /// An illegal-move error with its machine code and message.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        IllegalMove { code, message: message.into() }
    }
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IllegalMove {}

/// A variant string, its options, or a rule file that is not acceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants' docs say what their fields mean
pub enum VariantError {
    /// The variant string is malformed.
    Syntax(String),
    /// No game or rule file has this id.
    Unknown(String),
    /// An option the variant does not have, or a value it does not accept.
    BadOption { option: String, message: String },
    /// A rule file with a bad field.
    RuleFile { field: String, message: String },
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::Syntax(m) => write!(f, "malformed variant string: {m}"),
            VariantError::Unknown(id) => write!(f, "unknown variant {id:?}"),
            VariantError::BadOption { option, message } => write!(f, "option {option}: {message}"),
            VariantError::RuleFile { field, message } => {
                write!(f, "rule file field {field}: {message}")
            }
        }
    }
}

impl std::error::Error for VariantError {}

/// Any error of the core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Bad notation.
    Notation(NotationError),
    /// Bad or unknown variant, or bad rule file.
    Variant(VariantError),
    /// Illegal move.
    Illegal(IllegalMove),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Notation(e) => e.fmt(f),
            Error::Variant(e) => e.fmt(f),
            Error::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<NotationError> for Error {
    fn from(e: NotationError) -> Self {
        Error::Notation(e)
    }
}

impl From<VariantError> for Error {
    fn from(e: VariantError) -> Self {
        Error::Variant(e)
    }
}

impl From<IllegalMove> for Error {
    fn from(e: IllegalMove) -> Self {
        Error::Illegal(e)
    }
}
