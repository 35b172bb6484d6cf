//! A stored game as a record (for PGN export).

use serde_json::Value;
use xiangqi::Color;
use xiangqi_record::{GameRecord, GameResult as RecordResult};

use super::Loaded;
use crate::lines::{attach_notes, tree_of};
use crate::store::Mode;

/// The record of a game: its tags (with `Event`, `Red` and `Black` filled in when missing),
/// the main line with the alternative lines as variations, the comments and NAGs at their
/// moves, the result and `Termination`.
pub fn record_of(l: &Loaded) -> GameRecord {
    let mut rec = GameRecord {
        start: l.game.start().clone(),
        ..GameRecord::default()
    };
    if let Ok(Value::Object(tags)) = serde_json::from_str::<Value>(&l.row.tags) {
        for (k, v) in tags {
            if let Some(s) = v.as_str() {
                rec.set_tag(&k, s);
            }
        }
    }
    if rec.tag("Event").is_none() {
        rec.set_tag("Event", "xiangqi");
    }
    let names = |c: Color| -> String {
        if l.row.mode != Mode::Computer {
            "?".into()
        } else if l.row.human == Some(c) {
            "Player".into()
        } else {
            format!("xiangqi engine (level {})", l.row.level)
        }
    };
    if rec.tag("Red").is_none() {
        rec.set_tag("Red", names(Color::Red));
    }
    if rec.tag("Black").is_none() {
        rec.set_tag("Black", names(Color::Black));
    }
    rec.moves = tree_of(&l.game.moves(), &l.lines);
    rec.comment = attach_notes(&mut rec.moves, &l.notes);
    rec.result = match l.game.outcome() {
        Some(o) => match o.winner {
            Some(Color::Red) => RecordResult::RedWins,
            Some(Color::Black) => RecordResult::BlackWins,
            None => RecordResult::Draw,
        },
        None => RecordResult::Unknown,
    };
    if let Some(r) = l.game.ruling() {
        rec.set_tag("Termination", r.outcome.reason.as_str());
    }
    rec
}
