//! The exception hierarchy and the one place a core error becomes a Python exception.

use griot_core::error::Error;
use griot_core::error::VariantError as CoreVariantError;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(griot, GriotError, PyValueError, "Base of every error Griot raises for bad input.");

create_exception!(griot, NotationError, GriotError, "A position or move that could not be parsed.");

create_exception!(griot, VariantError, GriotError, "A malformed variant string or a bad option.");

create_exception!(griot, UnknownVariantError, VariantError, "No game has this variant id.");

create_exception!(griot, RuleFileError, VariantError, "A rule file with a bad field (see .field).");

create_exception!(
    griot,
    EgdbError,
    GriotError,
    "An endgame database that cannot be built or read: a rule set that cannot have one, a damaged or foreign file."
);

create_exception!(
    griot,
    IllegalMoveError,
    GriotError,
    "A move that is not legal in the position (see .code)."
);

/// Maps a core error to its Python exception. The only place this mapping is made.
pub(crate) fn to_py_err(py: Python<'_>, e: Error) -> PyErr {
    let err = match &e {
        Error::Notation(n) => NotationError::new_err(n.message.clone()),
        Error::Illegal(i) => IllegalMoveError::new_err(i.message.clone()),
        Error::Variant(CoreVariantError::Unknown(_)) => UnknownVariantError::new_err(e.to_string()),
        Error::Variant(CoreVariantError::RuleFile { .. }) => RuleFileError::new_err(e.to_string()),
        Error::Variant(_) => VariantError::new_err(e.to_string()),
    };
    let value = err.value(py);
    let set = |k: &str, v: Option<String>| {
        let _ = value.setattr(k, v);
    };
    // Every instance carries every attribute, None where it does not apply.
    for k in ["code", "field", "option"] {
        set(k, None);
    }
    match e {
        Error::Illegal(i) => set("code", Some(i.code.to_string())),
        Error::Variant(CoreVariantError::RuleFile { field, .. }) => set("field", Some(field)),
        Error::Variant(CoreVariantError::BadOption { option, .. }) => set("option", Some(option)),
        _ => {}
    }
    err
}

pub(crate) fn core<T>(py: Python<'_>, r: Result<T, impl Into<Error>>) -> PyResult<T> {
    r.map_err(|e| to_py_err(py, e.into()))
}

/// Text from Python: anything but a valid str (a lone surrogate, bytes) is the caller's error of
/// kind `E`, never a UnicodeEncodeError.
pub(crate) fn text_arg<E: pyo3::type_object::PyTypeInfo>(
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<String> {
    match obj.cast::<pyo3::types::PyString>() {
        Ok(s) => {
            s.to_str().map(str::to_owned).map_err(|_| PyErr::new::<E, _>(format!("{what} is not valid text")))
        }
        Err(_) => Err(PyErr::new::<E, _>(format!("{what} must be a str"))),
    }
}
