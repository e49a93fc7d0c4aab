//! Helpers shared by the integration tests: everything goes through Griot notation.

#![allow(dead_code)]

use griot_core::registry::parse_position;
use griot_core::{Error, Event, Outcome};

/// The position after playing `mv` (checked) in `position`.
pub fn after(position: &str, mv: &str) -> String {
    after_with_events(position, mv).0
}

/// The position after playing `mv` (checked), with the turn's events.
pub fn after_with_events(position: &str, mv: &str) -> (String, Vec<Event>) {
    let (g, p) = parse_position(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    let m = g.parse_move(&p, mv).unwrap_or_else(|e| panic!("{position} / {mv}: {e}"));
    let (next, events) = g.play(&p, &m).unwrap_or_else(|e| panic!("{position} / {mv}: {e}"));
    (g.format_position(&next).unwrap(), events)
}

/// The legal moves, in the core's order.
pub fn moves(position: &str) -> Vec<String> {
    let (g, p) = parse_position(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    g.legal_moves(&p).unwrap().iter().map(|m| g.format_move(&p, m).unwrap()).collect()
}

/// The outcome, if the game is over.
pub fn outcome(position: &str) -> Option<Outcome> {
    let (g, p) = parse_position(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    g.outcome(&p).unwrap()
}

/// The machine code of why `mv` is illegal in `position` (panics if it is legal).
pub fn illegal(position: &str, mv: &str) -> &'static str {
    let (g, p) = parse_position(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    let m = g.parse_move(&p, mv).unwrap_or_else(|e| panic!("{position} / {mv}: {e}"));
    match g.play(&p, &m) {
        Err(Error::Illegal(i)) => i.code,
        Err(e) => panic!("{position} / {mv}: unexpected error {e}"),
        Ok(_) => panic!("{position} / {mv}: the move is legal"),
    }
}

/// The parse error of a position (panics if it parses).
pub fn parse_error(position: &str) -> String {
    match parse_position(position) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{position} parsed"),
    }
}
