//! Exact results for the search: which games have endgame databases and how the search reads them.
//!
//! The rules know nothing of the databases (the databases depend on the rules, not the other way
//! round): the search asks this trait, implemented here for every family, and only the two-row
//! sowing games answer from [`Egdb`].

use crate::bechi::BechiGame;
use crate::egdb::Egdb;
use crate::game::{Game, Player};
use crate::ikibuguzo::IkibuguzoGame;
use crate::sabouiyya::SabouiyyaGame;
use crate::sowing::{SowingGame, SowingPosition};

/// The search's oracle of exact results.
pub trait ExactResults: Game {
    /// The winner of `pos` with best play (`Some(None)`: a draw) read from the endgame
    /// databases `db`, or `None` when the position is out of their range, its value there is not
    /// exact (valued by a cycle) or the game has none.
    #[inline(always)]
    fn exact_winner(&self, db: &Egdb, pos: &Self::Position) -> Option<Option<Player>> {
        let _ = (db, pos);
        None
    }
}

impl ExactResults for SowingGame {
    #[inline]
    fn exact_winner(&self, db: &Egdb, pos: &SowingPosition) -> Option<Option<Player>> {
        db.probe_winner(self, pos)
    }
}

impl ExactResults for BechiGame {}

impl ExactResults for IkibuguzoGame {}

impl ExactResults for SabouiyyaGame {}
