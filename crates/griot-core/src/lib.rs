//! Griot's native core: the rules of traditional board games (the mancala family and its
//! neighbours) and the search engine. Pure Rust; the Python bindings live in `griot-py`.
//!
//! - [`game`]: the one [`Game`](game::Game) trait every game family implements.
//! - [`variant`]: variant strings and their options.
//! - [`sowing`]: two-row sowing games as data (the Awale rule collection, abapa, Leb Bbut Ahbochen).
//! - [`bechi`]: Béchi, a whole multi-round match (its own module).
//! - [`ikibuguzo`]: Ikibuguzo (Opening 1), a four-row sowing game with its own module.
//! - [`sabouiyya`]: Sabou'iyya, a 5x5 placement and capture game with H'ajeb.
//! - [`registry`]: every game behind one enum, for the boundary.
//! - [`search`]: the search engine, generic over [`Game`](game::Game).

#![warn(missing_docs)]

pub mod bechi;
pub mod bench;
pub mod egdb;
pub mod error;
pub mod game;
pub mod ikibuguzo;
pub mod notation;
pub mod registry;
pub mod rng;
pub mod sabouiyya;
pub mod search;
pub mod sowing;
pub mod variant;

pub use error::{Error, IllegalMove, NotationError, VariantError};
pub use game::{perft, CaptureKind, EndReason, Event, Game, Geometry, MoveList, Outcome, Player};
pub use registry::{game, parse_position, AnyGame, AnyMove, AnyPosition};
pub use variant::Variant;

/// The engine version, part of every shared-cache key so that a rules or search change never
/// reads stale entries.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
