//! The opening explorer: for every position reached in a set of games, the moves played
//! from it with their results (games, Red wins, draws, Black wins), the mean rating of the
//! games where known, and the highest-rated and most recent game of each move.
//!
//! Three databases share one index file, as on lichess: *masters* (records an operator
//! imports), *site* (a server's ended games, by speed and rating band) and *player* (one
//! account's games, by the colour it had). A position and its left-right mirror share an
//! entry (`key`); only the main line of a game counts, up to a ply limit, and a game seen
//! twice counts once. Adding games never rebuilds: each batch is merged into the entries in
//! one transaction (a new index may instead be filled by one sorted bulk load,
//! `Explorer::bulk_load`).
//!
//! The engine's opening book (`book`) is a file of its own made from an index (`xiangqi
//! explorer book`); reading and probing it need neither redb nor the records crate (build
//! without the default `index` feature).
//!
//! Opening names (`openings`): a table of named positions compiled in, matched on the
//! position (mirror-aware, as the index's keys), a game's name that of its last named one.
//!
//! Storage is [redb](https://docs.rs/redb), an embedded copy-on-write B-tree (docs/EXPLORER.md
//! says why).

pub mod book;
pub mod key;
pub mod openings;
#[cfg(feature = "index")]
pub mod record;
pub mod stats;

#[cfg(feature = "index")]
mod index;

#[cfg(feature = "index")]
pub use index::{
    key_games, Added, Answer, BulkLoad, Db, Error, Explorer, GameMeta, KeyedBatch, MoveAnswer,
    NewGame, Options, Speed, Target, RATING_BANDS,
};
pub use key::{Keyed, PositionKey};
pub use openings::{opening_of, opening_of_line, Opening};

/// The index file's name inside an explorer's folder (`xiangqi explorer build -o DIR`,
/// `xiangqi serve --explorer DIR`).
pub const FILE_NAME: &str = "explorer.redb";
pub use stats::{GameRef, MoveStats, Outcome};
