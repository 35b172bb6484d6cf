//! Xiangqi game records: one in-memory model ([`GameRecord`]) and readers and writers for the
//! formats players keep their games in.

#![forbid(unsafe_code)]

pub mod cbf;
pub mod cbl;
pub mod cbr;
pub mod ccm;
pub mod che;
pub mod chn;
pub mod cntext;
pub mod date;
pub mod detect;
pub mod dhtmlxq;
pub mod encoding;
pub mod epd;
pub mod html;
pub mod model;
pub mod mxq;
pub mod pfc;
pub mod pgn;
pub mod rawtree;
pub mod xiexie;
mod xml;
pub mod xqf;
pub mod xqr;

pub use model::{GameRecord, GameResult, MoveNode};
