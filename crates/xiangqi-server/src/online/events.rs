//! What the board API streams: one JSON object a line, in lichess's board-API shapes.
//!
//! - `gameFull` first: the game's id, clock, players, start position and its `state` (and on
//!   a player's stream the `seat` its token holds);
//! - `gameState` after every change (a move, an offer, the end);
//! - `crowd` when a player connects or leaves, or the number of spectators changes;
//! - `opponentGone` to a player whose opponent left (with when a claim becomes possible);
//! - `rematch` when both players asked for one: the new game's id;
//! - `chatLine` for a line of the game's chat (`room` `player` to the players, `spectator`
//!   to the spectators, and to the players too once the game has ended).
//!
//! Times are milliseconds. Seat tokens never appear in any event: spectators read the same
//! stream.

use std::collections::BTreeMap;

use serde::Serialize;
use xiangqi::Color;

use super::live::LiveGame;

#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct ClockJson {
    pub initial: u64,
    pub increment: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerJson {
    pub name: String,
    /// The account holding the seat (its profile is `/@/{user}`); absent for a guest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// `BOT` when the account is a bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// In a rated game: the rating before it, and whether it was provisional.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisional: Option<bool>,
    /// What the game changed in the rating, once a rated game has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
}

/// The state after a change.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameState {
    /// The moves from the start position, UCI, separated by spaces.
    pub moves: String,
    /// Red's and Black's time left, `null` without a clock.
    #[schema(required)]
    pub rtime: Option<u64>,
    #[schema(required)]
    pub btime: Option<u64>,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    /// Correspondence: the side to move's deadline (ms since 1970) while the game goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<i64>,
    /// The side offering a draw / asking for a takeback / a rematch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_offer: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub takeback_offer: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rematch_offer: Option<&'static str>,
    /// The plain-language account of the end, in English and Chinese (simplified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_zh: Option<String>,
    /// The account of the end in every language, by the web app's language code: `en`,
    /// `zh-Hans`, `zh-Hant`, `vi`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texts: Option<BTreeMap<String, String>>,
}

/// A line of a game's chat, as lichess's board API streams it (with more: the author's
/// account and seat, the line's number and time). The text is as its author wrote it
/// (trimmed, without control characters): a client shows it as text, never as HTML.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct ChatLine {
    /// `player` (the two seats) or `spectator`.
    pub room: &'static str,
    /// The name shown: the seat's player name, or the spectator's account name.
    pub username: String,
    pub text: String,
    /// The author's account (absent for a guest's seat): what a block names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// `red` or `black` for a seat's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<&'static str>,
    /// The line's number in the game (both rooms count together), in the order they were
    /// written.
    pub seq: i64,
    /// ms since the Unix epoch.
    pub at: i64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
// An event lives only until it is written as a line: the size of `GameFull` costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Event {
    #[serde(rename_all = "camelCase")]
    GameFull {
        id: String,
        /// `null` in a correspondence game (and a game without a clock).
        #[schema(required)]
        clock: Option<ClockJson>,
        /// Correspondence: the days each move may take (1, 2, 3, 5, 7, 10 or 14).
        #[serde(skip_serializing_if = "Option::is_none")]
        days_per_turn: Option<u32>,
        red: PlayerJson,
        black: PlayerJson,
        initial_fen: String,
        state: GameState,
        /// On a player's stream, the side its token holds (not on spectators' streams).
        #[serde(skip_serializing_if = "Option::is_none")]
        seat: Option<&'static str>,
        /// Rated (between two accounts) or casual.
        rated: bool,
        /// The speed, by `limit + 40 × increment`: bullet, blitz, rapid, classical,
        /// correspondence (no clock).
        #[schema(value_type = String)]
        speed: Option<&'static str>,
    },
    GameState(GameState),
    Crowd {
        red: bool,
        black: bool,
        watchers: usize,
    },
    #[serde(rename_all = "camelCase")]
    OpponentGone {
        gone: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        claim_win_in_seconds: Option<u64>,
    },
    Rematch {
        id: String,
    },
    ChatLine(ChatLine),
}

impl Event {
    /// The event as one line of newline-delimited JSON (with the newline).
    pub fn line(&self) -> String {
        let mut s = serde_json::to_string(self).expect("events serialize");
        s.push('\n');
        s
    }
}

fn side(c: Option<Color>) -> Option<&'static str> {
    c.map(Color::name)
}

/// The state of `g` at `now`; `zh` gives the Chinese account of the end.
pub fn state(g: &LiveGame, now: u64, text_zh: Option<String>) -> GameState {
    let moves: Vec<String> = g.game.moves().iter().map(|m| m.to_string()).collect();
    let times = g.times(now);
    GameState {
        moves: moves.join(" "),
        rtime: times.map(|t| t[0]),
        btime: times.map(|t| t[1]),
        status: g.status().as_str(),
        winner: side(g.winner()),
        deadline: g.corr.and_then(|c| c.deadline),
        draw_offer: side(g.draw_offer),
        takeback_offer: side(g.takeback_offer),
        rematch_offer: side(g.rematch_offer),
        text: g.end_text(),
        text_zh,
        texts: g.end_texts(),
    }
}

/// The `gameFull` event of `g`.
pub fn full(id: &str, g: &LiveGame, now: u64, text_zh: Option<String>) -> Event {
    Event::GameFull {
        id: id.to_owned(),
        clock: g.clock.as_ref().map(|c| {
            let tc = c.time_control();
            ClockJson {
                initial: tc.initial,
                increment: tc.increment,
            }
        }),
        days_per_turn: g.corr.map(|c| c.days.get()),
        red: PlayerJson {
            name: g.names[0].clone(),
            ..PlayerJson::default()
        },
        black: PlayerJson {
            name: g.names[1].clone(),
            ..PlayerJson::default()
        },
        initial_fen: g.game.start().fen(),
        state: state(g, now, text_zh),
        seat: None,
        rated: false,
        speed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::online::clock::TimeControl;
    use xiangqi::{Game, Position};

    #[test]
    fn shapes_are_lichess_s() {
        let mut g = LiveGame::new(
            Game::new(Position::new()),
            Some(TimeControl {
                initial: 60_000,
                increment: 1_000,
            }),
            ["Ann".into(), "Bo".into()],
            0,
        );
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.draw_yes(Color::Red, 0).unwrap();
        let line = full("AbCd1234", &g, 0, None).line();
        assert!(line.ends_with('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["type"], "gameFull");
        assert_eq!(v["id"], "AbCd1234");
        assert_eq!(v["clock"]["initial"], 60_000);
        assert_eq!(v["red"]["name"], "Ann");
        assert_eq!(v["initialFen"], Position::new().fen());
        assert_eq!(v["state"]["moves"], "h2e2");
        assert_eq!(v["state"]["rtime"], 60_000);
        assert_eq!(v["state"]["status"], "started");
        assert_eq!(v["state"]["drawOffer"], "red");
        assert!(v["state"].get("winner").is_none());
        g.resign(Color::Black, 10).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&Event::GameState(state(&g, 10, None)).line()).unwrap();
        assert_eq!(v["type"], "gameState");
        assert_eq!(v["status"], "resign");
        assert_eq!(v["winner"], "red");
        assert!(v.get("drawOffer").is_none(), "the end clears offers");
        assert!(v["text"].as_str().unwrap().contains("resign"));
        let v: serde_json::Value = serde_json::from_str(
            &Event::OpponentGone {
                gone: true,
                claim_win_in_seconds: Some(12),
            }
            .line(),
        )
        .unwrap();
        assert_eq!(v["type"], "opponentGone");
        assert_eq!(v["claimWinInSeconds"], 12);
    }
}
