//! Variants and rule sets: the `Variant` class, the game families, user and built-in rule files.

use std::sync::Arc;

use griot_core::registry::{self, AnyGame, FamilyKind};
use griot_core::variant::{Allowed, OptionValue};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::errors::{core, text_arg, NotationError, RuleFileError, VariantError};
use crate::position::{player_str, Position};

/// A variant: a game with its options resolved. Compares and hashes by its canonical string.
#[pyclass(frozen, module = "griot._core")]
pub(crate) struct Variant {
    pub(crate) game: Arc<AnyGame>,
}

#[pymethods]
impl Variant {
    #[new]
    fn new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = text_arg::<VariantError>(text, "a variant string")?;
        Ok(Variant { game: core(py, registry::game(&text))? })
    }

    /// The family id, e.g. `abapa`.
    #[getter]
    fn id(&self) -> String {
        self.game.family_id().to_string()
    }

    /// The canonical variant string, e.g. `abapa(holes=4)`.
    #[getter]
    fn canonical(&self) -> String {
        self.game.variant().to_string()
    }

    /// The display name.
    #[getter]
    fn name(&self) -> String {
        family(self.game.family_id()).map(|f| f.name).unwrap_or_default()
    }

    /// Every option with its value.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.game.variant().options() {
            match v {
                OptionValue::Int(i) => d.set_item(k, *i)?,
                OptionValue::Bool(b) => d.set_item(k, *b)?,
            }
        }
        Ok(d)
    }

    /// The rules as readable sentences.
    #[getter]
    fn rules(&self) -> Vec<String> {
        self.game.describe_rules()
    }

    /// Board geometry: rows, cols, stores, sowing, and cells as dicts (row, col, owner, label).
    #[getter]
    fn geometry<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.game.geometry();
        let d = PyDict::new(py);
        d.set_item("rows", g.rows)?;
        d.set_item("cols", g.cols)?;
        d.set_item("stores", g.stores)?;
        d.set_item("sowing", g.sowing)?;
        let cells = PyList::empty(py);
        for c in g.cells {
            let cd = PyDict::new(py);
            cd.set_item("row", c.row)?;
            cd.set_item("col", c.col)?;
            cd.set_item("owner", c.owner.map(player_str))?;
            cd.set_item("label", c.label)?;
            cells.append(cd)?;
        }
        d.set_item("cells", cells)?;
        Ok(d)
    }

    /// The start position.
    fn start(&self) -> Position {
        Position { game: self.game.clone(), pos: self.game.start() }
    }

    /// Parses a position body (the notation without the variant string) of this variant.
    fn position(&self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<Position> {
        let body = text_arg::<NotationError>(body, "a position")?;
        Ok(Position { game: self.game.clone(), pos: core(py, self.game.parse_body(&body))? })
    }

    fn __str__(&self) -> String {
        self.canonical()
    }

    fn __repr__(&self) -> String {
        format!("Variant({:?})", self.canonical())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Variant>() {
            Ok(o) => o.get().canonical() == self.canonical(),
            Err(_) => other.extract::<String>().is_ok_and(|s| s == self.canonical()),
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.canonical().hash(&mut h);
        h.finish()
    }
}

pub(crate) fn family(id: &str) -> Option<registry::Family> {
    registry::families().into_iter().find(|f| f.id == id)
}

/// Every game family as dicts: id, name, kind, builtin, description, source, options.
#[pyfunction]
pub(crate) fn families<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for f in registry::families() {
        let d = PyDict::new(py);
        d.set_item("id", &f.id)?;
        d.set_item("name", &f.name)?;
        d.set_item("kind", if f.kind == FamilyKind::RuleFile { "rule_file" } else { "module" })?;
        d.set_item("builtin", f.builtin)?;
        d.set_item("description", &f.description)?;
        d.set_item("source", &f.source)?;
        let opts = PyList::empty(py);
        for o in &f.options {
            let od = PyDict::new(py);
            od.set_item("name", &o.name)?;
            match &o.default {
                OptionValue::Int(i) => od.set_item("default", *i)?,
                OptionValue::Bool(b) => od.set_item("default", *b)?,
            }
            match &o.allowed {
                Allowed::Range(lo, hi) => {
                    od.set_item("type", "int")?;
                    od.set_item("min", *lo)?;
                    od.set_item("max", *hi)?;
                }
                Allowed::OneOf(v) => {
                    od.set_item("type", "int")?;
                    od.set_item("choices", PyTuple::new(py, v)?)?;
                }
                Allowed::Bool => od.set_item("type", "bool")?,
            }
            od.set_item("description", &o.description)?;
            opts.append(od)?;
        }
        d.set_item("options", opts)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Registers a user rule file's text; returns its default variant. Raises RuleFileError.
#[pyfunction]
pub(crate) fn register_rule_file(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Variant> {
    let text = text_arg::<RuleFileError>(text, "a rule file")?;
    let rules = core(py, registry::register_rule_file(&text))?;
    Ok(Variant { game: core(py, registry::game(&rules.id))? })
}

/// The text of a built-in rule file by variant id, or None.
#[pyfunction]
pub(crate) fn builtin_rule_file(id: &str) -> Option<&'static str> {
    let name = format!("{id}.toml");
    // Readings live in a folder of their own; the file name is the id either way.
    registry::BUILTIN_RULE_FILES.iter().find(|(n, _)| n.rsplit('/').next() == Some(&name)).map(|(_, t)| *t)
}
