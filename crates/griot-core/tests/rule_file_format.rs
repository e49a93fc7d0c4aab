//! The rule file's format (`sowing::rule_file`, docs/RULE_FILES.md): what the writer writes for
//! every shipped file, the reader's error for each kind of mistake, and the field table of the docs
//! against the schema.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use griot_core::registry;
use griot_core::sowing::rules::RuleSet;
use griot_core::VariantError;

fn rule_file_error(text: &str) -> (String, String) {
    match RuleSet::from_toml(text) {
        Err(VariantError::RuleFile { field, message }) => (field, message),
        other => panic!("expected a rule-file error for\n{text}\ngot {other:?}"),
    }
}

/// Where the written text of each shipped rule file is kept, as the writer wrote it before the
/// schema was derived (`readings/x.toml` as `readings-x.toml`).
fn written_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/written")
}

fn written_name(name: &str) -> String {
    name.replace('/', "-")
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

#[test]
fn every_shipped_rule_file_is_written_as_before_and_reads_back() {
    for (name, text) in registry::BUILTIN_RULE_FILES {
        let rules = RuleSet::from_toml(text).unwrap();
        let written = rules.to_toml();
        let kept = fs::read_to_string(written_dir().join(written_name(name))).unwrap();
        assert_eq!(written, kept, "{name}");
        let back = RuleSet::from_toml(&written).unwrap_or_else(|e| panic!("{name}: {e}\n{written}"));
        assert_eq!(back, rules, "{name}");
        assert_eq!(back.to_toml(), written, "{name}");
    }
}

#[test]
fn a_file_setting_every_field_is_written_as_before_and_reads_back() {
    // The shipped files leave some fields unset (capture.chain_max, sowing.skip_above, a count as
    // end.stuck_threshold); this one sets every field away from its default.
    let text = fs::read_to_string(written_dir().join("every-field.in.toml")).unwrap();
    let rules = RuleSet::from_toml(&text).unwrap();
    let written = rules.to_toml();
    assert_eq!(written, fs::read_to_string(written_dir().join("every-field.toml")).unwrap());
    assert_eq!(RuleSet::from_toml(&written).unwrap(), rules);
}

#[test]
fn no_written_text_is_kept_for_a_file_that_is_not_shipped() {
    let mut expected: BTreeSet<String> =
        registry::BUILTIN_RULE_FILES.iter().map(|(name, _)| written_name(name)).collect();
    expected.extend(["every-field.in.toml".to_string(), "every-field.toml".to_string()]);
    let kept: BTreeSet<String> = fs::read_dir(written_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(kept, expected);
}

// ---------------------------------------------------------------------------------------------
// Reading: one case or more for each kind of mistake, with the field and the whole message
// ---------------------------------------------------------------------------------------------

fn assert_errors(cases: &[(&str, &str, &str)]) {
    for (text, field, message) in cases {
        let (f, m) = rule_file_error(text);
        assert_eq!((f.as_str(), m.as_str()), (*field, *message), "{text}");
    }
}

#[test]
fn toml_syntax_errors_name_the_line_and_column() {
    assert_errors(&[("id = \"x\"\n[board\n", "line 2, column 7", "unclosed table, expected `]`")]);
}

#[test]
fn unknown_fields_are_named_with_the_known_ones() {
    assert_errors(&[
        (
            "id = \"x\"\ncolour = \"red\"\n",
            "colour",
            "unknown field `colour`, expected one of `id`, `name`, `description`, `source`, `board`, \
             `opening`, `rounds`, `sowing`, `relay`, `flow_capture`, `capture`, `starving`, `end`, \
             `remaining`, `scoring`",
        ),
        (
            "id = \"x\"\n[rounds]\nend = \"row-empty\"\nrefill_seeds = 4\nrefill = 2\n",
            "rounds.refill",
            "unknown field `refill`, expected one of `end`, `refill_seeds`, `lose_below`, `empty_holes`",
        ),
    ]);
}

#[test]
fn wrong_types_name_the_field_the_value_and_what_it_takes() {
    assert_errors(&[
        ("id = 3\n", "id", "invalid type: integer `3`, expected a string"),
        ("id = \"x\"\nboard = 3\n", "board", "invalid type: integer `3`, expected a table [board]"),
        (
            "id = \"x\"\n[board]\nholes = \"six\"\n",
            "board.holes",
            "invalid type: string \"six\", expected an integer from 1 to 18",
        ),
        (
            "id = \"x\"\n[sowing]\nleave_one = \"yes\"\n",
            "sowing.leave_one",
            "invalid type: string \"yes\", expected a boolean",
        ),
        (
            "id = \"x\"\n[sowing]\ndirection = 3\n",
            "sowing.direction",
            "invalid type: integer `3`, expected one of ccw, cw, choice",
        ),
        (
            "id = \"x\"\n[capture]\nvalues = [true]\nterritory = \"any\"\n",
            "capture.values",
            "invalid type: boolean `true`, expected a count or a range of counts",
        ),
        (
            "id = \"x\"\n[board]\nallowed_holes = 4\n",
            "board.allowed_holes",
            "invalid type: integer `4`, expected a list of hole counts from 1 to 18",
        ),
    ]);
}

#[test]
fn values_out_of_range_name_the_range() {
    assert_errors(&[
        ("id = \"x\"\n[board]\nholes = 19\n", "board.holes", "19 is outside 1..=18"),
        ("id = \"x\"\n[board]\nseeds = -1\n", "board.seeds", "-1 is outside 1..=255"),
        ("id = \"x\"\n[board]\nallowed_holes = [4, 19]\n", "board.allowed_holes", "19 is outside 1..=18"),
        (
            "id = \"x\"\n[relay]\nmode = \"ends-on\"\nvalues = [256]\n",
            "relay.values",
            "count 256 is outside 0..=255",
        ),
        (
            "id = \"x\"\n[capture]\nvalues = [\"3..1\"]\nterritory = \"any\"\n",
            "capture.values",
            "range \"3..1\" is empty or goes past 255",
        ),
        (
            "id = \"x\"\n[capture]\nvalues = []\nterritory = \"any\"\n",
            "capture.values",
            "the set of counts is empty",
        ),
        (
            "id = \"x\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = 0\n",
            "end.stuck_threshold",
            "expected a count 1..=255 or \"start-row\", found 0",
        ),
    ]);
}

#[test]
fn unknown_words_name_the_words_the_field_takes() {
    assert_errors(&[
        (
            "id = \"x\"\n[sowing]\ndirection = \"up\"\n",
            "sowing.direction",
            "\"up\" is not one of ccw, cw, choice",
        ),
        (
            "id = \"x\"\n[capture]\nvalues = [\"many\"]\nterritory = \"any\"\n",
            "capture.values",
            "\"many\" is not a count, a range like \"1..48\", \"even\" or \"odd\"",
        ),
        (
            "id = \"x\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = \"row\"\n",
            "end.stuck_threshold",
            "expected a count 1..=255 or \"start-row\", found \"row\"",
        ),
        (
            "id = \"x\"\n[rounds]\nend = \"board-empty\"\nrefill_seeds = 4\n",
            "rounds.end",
            "\"board-empty\" is not one of row-empty",
        ),
    ]);
}

#[test]
fn missing_required_fields_say_what_they_need() {
    assert_errors(&[
        ("name = \"x\"\n", "id", "missing: every rule file needs an id"),
        ("id = \"x\"\n[relay]\nvalues = [1]\n", "relay.mode", "missing: \"ends-on\" or \"continues-on\""),
        ("id = \"x\"\n[relay]\nmode = \"ends-on\"\n", "relay.values", "missing"),
        (
            "id = \"x\"\n[flow_capture]\nvalues = [4]\n",
            "flow_capture.taker",
            "missing: \"owner\" or \"mover-on-opponent-side\"",
        ),
        (
            "id = \"x\"\n[capture]\nvalues = [2]\n",
            "capture.territory",
            "missing: \"own\", \"opponent\" or \"any\"",
        ),
        (
            "id = \"x\"\n[rounds]\nend = \"row-empty\"\n",
            "rounds.refill_seeds",
            "missing: the seeds put into a hole a refill turn",
        ),
    ]);
}

#[test]
fn fields_that_disagree_name_the_one_to_change() {
    assert_errors(&[
        ("id = \"Bad Id\"\n", "id", "\"Bad Id\" must be lower-case letters, digits and '-'"),
        (
            "id = \"x\"\n[board]\nallowed_holes = [4, 8]\n",
            "board.allowed_holes",
            "does not contain the default 6",
        ),
        (
            "id = \"x\"\n[board]\nholes = 18\nseeds = 8\n",
            "board.seeds",
            "2 x 18 holes x 8 seeds = 288 seeds; a board holds at most 255",
        ),
        (
            "id = \"x\"\n[sowing]\nleave_one = true\n",
            "sowing.min_seeds",
            "must be at least 2 when sowing.leave_one is true",
        ),
        (
            "id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"any\"\nchain_origin = \"stops-before\"\n",
            "capture.chain_origin",
            "needs a chain: capture.chain is \"none\"",
        ),
        (
            "id = \"x\"\n[end]\nstuck_threshold = 50\n",
            "end.stuck_threshold",
            "only read with end.stuck_result = \"mover-wins-below\"",
        ),
        (
            "id = \"x\"\n[starving]\nrule = \"forbidden\"\nlap_cut = \"game-ends\"\n",
            "starving.lap_cut",
            "\"game-ends\" needs starving.judged = \"lap\"",
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// docs/RULE_FILES.md's field table against the schema
// ---------------------------------------------------------------------------------------------

/// One row of the field table: its fields, the values column split into the kind of value and the
/// default in brackets, if any.
struct Row {
    fields: Vec<String>,
    values: String,
    default: Option<String>,
}

fn doc_rows() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/RULE_FILES.md");
    let doc = fs::read_to_string(path).unwrap();
    let mut rows = Vec::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 3, "{line}");
        let fields = cells[0].split(", ").map(|f| f.trim_matches('`').to_string()).collect();
        let (values, default) = match cells[1].rsplit_once(" (") {
            Some((v, d)) if d.ends_with(')') => (v.to_string(), Some(d.trim_end_matches(')').to_string())),
            _ => (cells[1].to_string(), None),
        };
        rows.push(Row { fields, values, default });
    }
    assert!(rows.len() > 40, "the field table was not found");
    rows
}

/// The fields the schema knows in one table, as serde's unknown-field message lists them.
fn schema_fields(section: Option<&str>) -> Vec<String> {
    let text = match section {
        None => "id = \"x\"\nzz = 1\n".to_string(),
        Some(s) => format!("id = \"x\"\n[{s}]\nzz = 1\n"),
    };
    let (field, message) = rule_file_error(&text);
    assert_eq!(field, section.map_or("zz".to_string(), |s| format!("{s}.zz")), "{message}");
    // serde says "expected `a`", "expected `a` or `b`" or "expected one of `a`, `b`, `c`".
    let list = message.strip_prefix("unknown field `zz`, expected ").unwrap_or_else(|| panic!("{message}"));
    let list = list.strip_prefix("one of ").unwrap_or(list);
    list.split(", ").flat_map(|f| f.split(" or ")).map(|f| f.trim_matches('`').to_string()).collect()
}

/// Every field of the schema by its dotted path, and the tables.
fn schema() -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut fields, mut tables) = (BTreeSet::new(), BTreeSet::new());
    for top in schema_fields(None) {
        // A table answers an unknown key inside it with its own fields; a plain value does not.
        let (f, _) = rule_file_error(&format!("id = \"x\"\n[{top}]\nzz = 1\n"));
        if f == format!("{top}.zz") {
            fields.extend(schema_fields(Some(&top)).into_iter().map(|k| format!("{top}.{k}")));
            tables.insert(top);
        } else {
            fields.insert(top);
        }
    }
    (fields, tables)
}

/// What a table needs to read at all.
fn required_lines(table: &str) -> &'static [&'static str] {
    match table {
        "relay" => &["mode = \"ends-on\"", "values = [1]"],
        "flow_capture" => &["values = [4]", "taker = \"owner\""],
        "capture" => &["values = [2]", "territory = \"any\""],
        "rounds" => &["end = \"row-empty\"", "refill_seeds = 4"],
        _ => &[],
    }
}

/// A file with `field = value` (no line for `field` if `value` is None), beside what its table
/// needs and `context` lines in the same table.
fn file_with(field: &str, value: Option<&str>, context: &[&str]) -> String {
    let line = |k: &str| value.map(|v| format!("{k} = {v}\n")).unwrap_or_default();
    match field.split_once('.') {
        None if field == "id" => line("id"),
        None => format!("id = \"x\"\n{}", line(field)),
        Some((table, key)) => {
            let mut text = format!("id = \"x\"\n[{table}]\n");
            for l in required_lines(table).iter().chain(context) {
                if !l.starts_with(&format!("{key} ")) {
                    text += &format!("{l}\n");
                }
            }
            text + &line(key)
        }
    }
}

/// The value the writer writes for `field` when the file leaves it out.
fn written_default(field: &str) -> Option<String> {
    // The chain's origin is written only with a chain, where it is read.
    let context: &[&str] = if field == "capture.chain_origin" { &["chain = \"backward\""] } else { &[] };
    let text = file_with(field, None, context);
    let written: toml::Table =
        RuleSet::from_toml(&text).unwrap_or_else(|e| panic!("{text}: {e}")).to_toml().parse().unwrap();
    let value = match field.split_once('.') {
        None => written.get(field),
        Some((table, key)) => written[table].as_table().unwrap().get(key),
    }?;
    Some(match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

#[test]
fn the_field_table_of_the_docs_and_the_schema_agree() {
    let rows = doc_rows();
    let (fields, tables) = schema();
    let documented: BTreeSet<String> =
        rows.iter().flat_map(|r| r.fields.iter()).filter(|f| !f.starts_with('[')).cloned().collect();
    assert_eq!(documented, fields, "documented fields (left) against the schema's (right)");
    let mut words_before = String::new();
    for row in &rows {
        for field in &row.fields {
            if let Some(table) = field.strip_prefix('[').and_then(|f| f.strip_suffix(']')) {
                assert!(tables.contains(table), "{field} is not a table of the schema");
                assert_eq!(row.values, "table", "{field}");
                continue;
            }
            let values = if row.values == "same" { words_before.clone() } else { row.values.clone() };
            // The kind of value: a word list, a range, or a type.
            let (bad, says) = if values.starts_with('`') {
                let words: Vec<&str> = values.split(", ").map(|w| w.trim_matches('`')).collect();
                ("\"zz\"".to_string(), format!("\"zz\" is not one of {}", words.join(", ")))
            } else if let Some((lo, rest)) = values.split_once('-').filter(|(lo, _)| lo.parse::<u8>().is_ok())
            {
                let hi: String = rest.chars().take_while(char::is_ascii_digit).collect();
                ("1000".to_string(), format!("{lo}..={hi}"))
            } else {
                match values.as_str() {
                    "bool" => ("7".into(), "expected a boolean".into()),
                    "text" | "lower-case slug" => ("7".into(), "expected a string".into()),
                    "counts" => ("true".into(), "expected counts".into()),
                    "list" => ("7".into(), "expected a list".into()),
                    other => panic!("{field}: unknown kind of value {other:?}"),
                }
            };
            let (f, m) = rule_file_error(&file_with(field, Some(&bad), &[]));
            assert_eq!(f, *field, "{m}");
            // A word list is the whole message, so that a word missing from the docs is seen.
            let agrees = if values.starts_with('`') { m == says } else { m.contains(&says) };
            assert!(agrees, "{field}: the docs say {values:?}, the schema {m:?}");
            words_before = values.clone();
            // The default in brackets.
            match row.default.as_deref() {
                Some("required") => {
                    let (f, m) = rule_file_error(&file_with(field, None, &[]));
                    assert_eq!(f, *field, "{m}");
                    assert!(m.starts_with("missing"), "{field}: {m}");
                }
                Some(default) => {
                    let default = default.trim_matches('`');
                    assert_eq!(written_default(field).as_deref(), Some(default), "{field}");
                }
                // No default: the field is left out of the written file when the file leaves it
                // out (text fields are written empty).
                None if values == "text" => {}
                None => assert_eq!(written_default(field), None, "{field}"),
            }
        }
    }
}
