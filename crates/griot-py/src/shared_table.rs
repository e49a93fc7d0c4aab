//! A Python object as the search's second-level table (`griot_core::search::shared`).

use griot_core::search::{Bound as SearchBound, SharedEntry, SharedRequest, SharedTable};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::errors::GriotError;

/// A Python object as the search's second-level table (see `griot_core::search::shared`): its
/// `min_depth` and `plies` attributes are read once; `fetch(requests)` gets a list of
/// `(key: bytes, depth: int)` once per iteration and returns entries; `publish(entries)` gets the
/// new deep entries once per iteration. An entry is `(key, depth, bound, value, best)` with `bound`
/// one of `lower`, `upper`, `exact`, a node-relative `value` and `best` the index of the best move
/// in the legal-move list (or None). The GIL is taken only for these calls; an exception in them
/// stops the search and is raised.
pub(crate) struct PySharedTable {
    pub(crate) table: Py<PyAny>,
    pub(crate) min_depth: u32,
    pub(crate) plies: u32,
    pub(crate) error: Option<PyErr>,
}

impl PySharedTable {
    pub(crate) fn new(py: Python<'_>, table: Py<PyAny>) -> PyResult<Self> {
        let min_depth = table.getattr(py, "min_depth")?.extract::<u32>(py)?;
        let plies = table.getattr(py, "plies")?.extract::<u32>(py)?;
        Ok(PySharedTable { table, min_depth: min_depth.max(1), plies: plies.min(4), error: None })
    }

    pub(crate) fn entry(item: &Bound<'_, PyAny>) -> PyResult<SharedEntry> {
        let (key, depth, bound, value, best): (Vec<u8>, u32, String, i32, Option<u16>) = item.extract()?;
        let bound = match bound.as_str() {
            "lower" => SearchBound::Lower,
            "upper" => SearchBound::Upper,
            "exact" => SearchBound::Exact,
            other => {
                return Err(GriotError::new_err(format!(
                    "shared table entry: bound {other:?} is not lower, upper or exact"
                )))
            }
        };
        Ok(SharedEntry { key, depth, bound, value, best })
    }
}

impl SharedTable for PySharedTable {
    fn min_depth(&self) -> u32 {
        self.min_depth
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn fetch(&mut self, requests: &[SharedRequest]) -> Vec<SharedEntry> {
        if self.error.is_some() {
            return Vec::new();
        }
        let r = Python::attach(|py| -> PyResult<Vec<SharedEntry>> {
            let list = PyList::empty(py);
            for q in requests {
                list.append((PyBytes::new(py, &q.key), q.depth))?;
            }
            let out = self.table.call_method1(py, "fetch", (list,))?;
            out.bind(py).try_iter()?.map(|item| Self::entry(&item?)).collect()
        });
        r.unwrap_or_else(|e| {
            self.error = Some(e);
            Vec::new()
        })
    }

    fn publish(&mut self, entries: Vec<SharedEntry>) {
        if self.error.is_some() {
            return;
        }
        let r = Python::attach(|py| -> PyResult<()> {
            let list = PyList::empty(py);
            for e in entries {
                list.append((PyBytes::new(py, &e.key), e.depth, e.bound.name(), e.value, e.best))?;
            }
            self.table.call_method1(py, "publish", (list,))?;
            Ok(())
        });
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}
