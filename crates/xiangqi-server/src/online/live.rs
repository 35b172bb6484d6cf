//! A live game between two people: the rules game, the clock, the offers between the players
//! and who is connected. Pure state: every operation takes the time ("now", monotonic ms)
//! and returns what changed or why it is refused; storing and broadcasting are the caller's.
//!
//! The rules decide every ending by rule (`xiangqi::Game::outcome`, perpetual check and chase
//! with their account); this layer adds what only exists between people on a server: abort,
//! the fallen flag judged by the server's clock, a victory (or draw) claimed when the
//! opponent has left, draw offers and takeback requests, rematch.

use std::collections::BTreeMap;

use xiangqi::game::Ruling;
use xiangqi::notation::Notation;
use xiangqi::prose::Lang;
use xiangqi::{Color, Game, Move, Outcome, Reason};

use super::clock::{first_move_limit, Clock, Press, Snapshot, TimeControl};
use super::corr::{self, Days};

/// The game's status, named as lichess's board API names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// No move yet.
    Created,
    Started,
    Aborted,
    Mate,
    Stalemate,
    Resign,
    OutOfTime,
    /// A victory claimed after the opponent left.
    Timeout,
    /// Drawn by agreement (or a draw claimed after the opponent left).
    Draw,
    Repetition,
    PerpetualCheck,
    PerpetualChase,
    MoveLimit,
    InsufficientMaterial,
}

impl Status {
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Started => "started",
            Status::Aborted => "aborted",
            Status::Mate => "mate",
            Status::Stalemate => "stalemate",
            Status::Resign => "resign",
            Status::OutOfTime => "outoftime",
            Status::Timeout => "timeout",
            Status::Draw => "draw",
            Status::Repetition => "repetition",
            Status::PerpetualCheck => "perpetualCheck",
            Status::PerpetualChase => "perpetualChase",
            Status::MoveLimit => "moveLimit",
            Status::InsufficientMaterial => "insufficientMaterial",
        }
    }

    /// The status of a game that ended by `reason`.
    pub const fn of_reason(reason: Reason) -> Status {
        match reason {
            Reason::Checkmate => Status::Mate,
            Reason::Stalemate => Status::Stalemate,
            Reason::PerpetualCheck => Status::PerpetualCheck,
            Reason::PerpetualChase => Status::PerpetualChase,
            Reason::Repetition => Status::Repetition,
            Reason::MoveLimit => Status::MoveLimit,
            Reason::InsufficientMaterial => Status::InsufficientMaterial,
            Reason::Resignation => Status::Resign,
            Reason::Agreement => Status::Draw,
            Reason::Time => Status::OutOfTime,
        }
    }

    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Created | Status::Started)
    }
}

/// How a live game ended beyond the rules game's own result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The rules game's result (a rule ending, resignation, agreement or time).
    Ruled(Ruling),
    /// Aborted before both sides had moved.
    Aborted,
    /// `winner` claimed the game after the opponent left for longer than the grace period.
    Claimed { winner: Option<Color> },
}

/// Why an operation is refused. Each maps to one HTTP status (see `status_code`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The game is over.
    GameOver,
    /// It is the other side's turn.
    NotYourTurn,
    /// A move that cannot be read or is illegal here (422).
    IllegalMove(String),
    /// Abort is possible only before each side has made its first move.
    TooLateToAbort,
    /// Nothing to accept or decline.
    NoOffer(&'static str),
    /// A takeback asked for with no move of one's own to take back.
    NothingToTakeBack,
    /// Claiming a victory or draw needs the opponent gone for the grace period.
    OpponentNotGone { wait_ms: u64 },
    /// A rematch is asked for after the game.
    NotOver,
    /// No victory or draw is claimed in a correspondence game: the opponent has until the
    /// deadline.
    Correspondence,
}

impl Refusal {
    /// The HTTP status the board API answers with.
    pub fn status_code(&self) -> u16 {
        match self {
            Refusal::IllegalMove(_) => 422,
            _ => 409,
        }
    }
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Refusal::GameOver => f.write_str("the game is over"),
            Refusal::NotYourTurn => f.write_str("it is not your turn"),
            Refusal::IllegalMove(m) => f.write_str(m),
            Refusal::TooLateToAbort => {
                f.write_str("the game can be aborted only before each side has moved")
            }
            Refusal::NoOffer(what) => write!(f, "there is no {what} to answer"),
            Refusal::NothingToTakeBack => f.write_str("you have no move to take back"),
            Refusal::NotOver => f.write_str("a rematch can be asked for when the game is over"),
            Refusal::Correspondence => f.write_str(
                "a correspondence game cannot be claimed: your opponent has until the deadline \
                 to move, and loses on time after it",
            ),
            Refusal::OpponentNotGone { wait_ms } => write!(
                f,
                "your opponent has not been gone long enough: wait {} more seconds",
                wait_ms.div_ceil(1000)
            ),
        }
    }
}

/// A correspondence game's days per move and the side to move's deadline.
///
/// The deadline is wall-clock time (ms since 1970); the live game's "now" stays the caller's
/// monotonic count, and `epoch` is the wall time of its 0, so the two convert exactly.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Correspondence {
    pub days: Days,
    /// The length of a day in ms (a real day but in tests).
    pub day_ms: u64,
    /// The wall time (ms since 1970) of the monotonic "now" 0.
    pub epoch: i64,
    /// The side to move's deadline (wall ms); `None` once the game is over.
    pub deadline: Option<i64>,
}

impl Correspondence {
    fn wall(&self, now: u64) -> i64 {
        self.epoch.saturating_add(now as i64)
    }

    /// A new turn begins at `now`.
    fn turn(&mut self, now: u64) {
        self.deadline = Some(corr::deadline(self.days, self.day_ms, self.wall(now)));
    }

    /// Whether the deadline has passed at `now`.
    fn passed(&self, now: u64) -> bool {
        self.deadline.is_some_and(|d| self.wall(now) >= d)
    }

    /// The time left at `now` (ms), 0 once passed.
    pub fn left(&self, now: u64) -> Option<u64> {
        self.deadline
            .map(|d| u64::try_from(d.saturating_sub(self.wall(now))).unwrap_or(0))
    }
}

/// A live game.
#[derive(Clone, Debug)]
pub struct LiveGame {
    pub game: Game,
    pub clock: Option<Clock>,
    /// Days per move instead of a clock (then `clock` is `None`).
    pub corr: Option<Correspondence>,
    pub names: [String; 2],
    end: Option<End>,
    /// The side that offers a draw, a takeback or a rematch, if any.
    pub draw_offer: Option<Color>,
    pub takeback_offer: Option<Color>,
    pub rematch_offer: Option<Color>,
    /// Per side: open connections, and since when it has had none (`None` while connected).
    connections: [u32; 2],
    gone_since: [Option<u64>; 2],
    /// When the current turn began (for the first-move limit and abort by the server).
    turn_began: u64,
}

fn i(c: Color) -> usize {
    c.index()
}

impl LiveGame {
    /// A new game from `game` (its start position and any moves), started at `now`. The
    /// players are not yet connected: their absence counts from `now`.
    pub fn new(game: Game, tc: Option<TimeControl>, names: [String; 2], now: u64) -> LiveGame {
        let mut g = LiveGame {
            game,
            clock: tc.map(Clock::new),
            corr: None,
            names,
            end: None,
            draw_offer: None,
            takeback_offer: None,
            rematch_offer: None,
            connections: [0; 2],
            gone_since: [Some(now); 2],
            turn_began: now,
        };
        g.settle(now);
        g
    }

    /// A stored game brought back after a restart at `now`: the clock as stored, running
    /// again for the side to move from `now` (the time the server was down is not charged).
    pub fn restore(
        game: Game,
        tc: Option<TimeControl>,
        snapshot: Option<Snapshot>,
        names: [String; 2],
        end: Option<End>,
        now: u64,
    ) -> LiveGame {
        let mut g = LiveGame::new(game, None, names, now);
        g.clock = tc.map(|tc| match snapshot {
            Some(s) => Clock::from_snapshot(tc, s),
            None => Clock::new(tc),
        });
        g.end = end;
        if g.end.is_none() && g.game.len() >= 2 {
            let turn = g.turn();
            if let Some(c) = g.clock.as_mut() {
                c.resume(turn, now);
            }
        }
        g.settle(now);
        g
    }

    /// Makes this game (without a clock) a correspondence game of `days` per move, each day
    /// `day_ms` long, `epoch` the wall time of "now" 0; the side to move's turn begins at
    /// `now`, unless `deadline` (a restored game's, wall ms) is given.
    pub fn set_correspondence(
        &mut self,
        days: Days,
        day_ms: u64,
        epoch: i64,
        deadline: Option<i64>,
        now: u64,
    ) {
        let mut c = Correspondence {
            days,
            day_ms,
            epoch,
            deadline,
        };
        self.clock = None;
        if self.end.is_some() {
            c.deadline = None;
        } else if deadline.is_none() {
            c.turn(now);
        }
        self.corr = Some(c);
    }

    pub fn turn(&self) -> Color {
        self.game.position().turn()
    }

    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    pub fn status(&self) -> Status {
        match &self.end {
            None if self.game.is_empty() => Status::Created,
            None => Status::Started,
            Some(End::Aborted) => Status::Aborted,
            Some(End::Claimed { winner: Some(_) }) => Status::Timeout,
            Some(End::Claimed { winner: None }) => Status::Draw,
            Some(End::Ruled(r)) => Status::of_reason(r.outcome.reason),
        }
    }

    pub fn winner(&self) -> Option<Color> {
        match &self.end {
            Some(End::Ruled(r)) => r.outcome.winner,
            Some(End::Claimed { winner }) => *winner,
            _ => None,
        }
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Whether the game may still be aborted: until each side has made a first move.
    pub fn abortable(&self) -> bool {
        self.end.is_none() && self.game.len() < 2
    }

    /// The rules game's ending, if it has one: takes it over as the live game's end and stops
    /// the clock. Called after every change.
    fn settle(&mut self, now: u64) {
        if self.end.is_some() {
            return;
        }
        if let Some(r) = self.game.ruling() {
            self.finish(End::Ruled(r), now);
        }
    }

    fn finish(&mut self, end: End, now: u64) {
        self.end = Some(end);
        self.draw_offer = None;
        self.takeback_offer = None;
        if let Some(c) = self.clock.as_mut() {
            c.stop(now);
        }
        if let Some(c) = self.corr.as_mut() {
            c.deadline = None;
        }
    }

    fn playing(&self) -> Result<(), Refusal> {
        if self.end.is_some() {
            Err(Refusal::GameOver)
        } else {
            Ok(())
        }
    }

    /// Reads a move in any notation (UCI `h2e2`, ICCS `H2-E2`, WXF `C2.5`, Chinese `炮二平五`).
    pub fn read_move(&self, text: &str) -> Result<Move, Refusal> {
        let pos = self.game.position();
        let t = text.trim();
        let bad = |reason: String| Refusal::IllegalMove(format!("move '{}': {reason}", clip(t)));
        let notation = Notation::guess(t)
            .ok_or_else(|| bad("not a move in UCI, WXF or Chinese notation".into()))?;
        notation.read(pos, t).map_err(|e| bad(e.to_string()))
    }

    /// `seat` plays `text` at `now`.
    pub fn play(&mut self, seat: Color, text: &str, now: u64) -> Result<Move, Refusal> {
        self.playing()?;
        if self.turn() != seat {
            return Err(Refusal::NotYourTurn);
        }
        let m = self.read_move(text)?;
        if let Some(c) = self.clock.as_mut() {
            // The clock runs from the second move on: Black's first move starts Red's time.
            let start_after = self.game.len() + 1 >= 2;
            if c.press(seat, now, start_after) == Press::Flagged {
                self.flag_fall(seat, now);
                return Err(Refusal::GameOver);
            }
        }
        if self.corr.is_some_and(|c| c.passed(now)) {
            // The deadline passed before the move arrived (the timer had not yet looked).
            self.tick(now);
            return Err(Refusal::GameOver);
        }
        self.game.push_unchecked(m);
        self.turn_began = now;
        if let Some(c) = self.corr.as_mut() {
            c.turn(now);
        }
        // A move declines the opponent's draw offer and any takeback request.
        if self.draw_offer == Some(!seat) {
            self.draw_offer = None;
        }
        self.takeback_offer = None;
        self.settle(now);
        Ok(m)
    }

    /// The side to move lost on time (or drew: the side with time left cannot mate).
    fn flag_fall(&mut self, loser: Color, now: u64) {
        self.game.flag(loser);
        if let Some(r) = self.game.ruling() {
            self.finish(End::Ruled(r), now);
        }
    }

    /// Looks at the clock and the first-move limit at `now`: ends the game on a fallen flag, or
    /// aborts it when a side did not make its first move in time. Returns whether it ended.
    pub fn tick(&mut self, now: u64) -> bool {
        if self.end.is_some() {
            return false;
        }
        if let Some(loser) = self.clock.as_ref().and_then(|c| c.flagged(now)) {
            self.flag_fall(loser, now);
            return true;
        }
        if let Some(c) = self.corr {
            // Correspondence: no first-move limit, the deadline only. A side that lets its
            // first move's deadline pass aborts the game; later, it loses on time.
            if !c.passed(now) {
                return false;
            }
            if self.game.len() < 2 {
                self.finish(End::Aborted, now);
            } else {
                self.flag_fall(self.turn(), now);
            }
            return true;
        }
        let tc = self.clock.as_ref().map(|c| c.time_control());
        if self.game.len() < 2 && now.saturating_sub(self.turn_began) >= first_move_limit(tc) {
            self.finish(End::Aborted, now);
            return true;
        }
        false
    }

    /// When [`LiveGame::tick`] should next look (ms from `now`), if ever.
    pub fn next_deadline(&self, now: u64) -> Option<u64> {
        if self.end.is_some() {
            return None;
        }
        if let Some(c) = &self.corr {
            return c.left(now);
        }
        if self.game.len() < 2 {
            let tc = self.clock.as_ref().map(|c| c.time_control());
            let at = self.turn_began + first_move_limit(tc);
            return Some(at.saturating_sub(now));
        }
        self.clock.as_ref().and_then(|c| c.until_flag(now))
    }

    pub fn resign(&mut self, seat: Color, now: u64) -> Result<(), Refusal> {
        self.playing()?;
        self.game.resign(seat);
        self.settle(now);
        Ok(())
    }

    pub fn abort(&mut self, _seat: Color, now: u64) -> Result<(), Refusal> {
        self.playing()?;
        if !self.abortable() {
            return Err(Refusal::TooLateToAbort);
        }
        self.finish(End::Aborted, now);
        Ok(())
    }

    /// `/draw/yes`: offers a draw, or accepts the opponent's offer.
    pub fn draw_yes(&mut self, seat: Color, now: u64) -> Result<(), Refusal> {
        self.playing()?;
        if self.draw_offer == Some(!seat) {
            self.game.agree_draw();
            self.settle(now);
        } else {
            self.draw_offer = Some(seat);
        }
        Ok(())
    }

    /// `/draw/no`: declines the opponent's offer or withdraws one's own.
    pub fn draw_no(&mut self, _seat: Color) -> Result<(), Refusal> {
        self.playing()?;
        self.draw_offer
            .take()
            .map(|_| ())
            .ok_or(Refusal::NoOffer("draw offer"))
    }

    /// `/takeback/yes`: asks to take back one's last move, or accepts the opponent's request
    /// (which takes back the requester's last move, and the reply after it if there is one).
    pub fn takeback_yes(&mut self, seat: Color, now: u64) -> Result<(), Refusal> {
        self.playing()?;
        if self.takeback_offer == Some(!seat) {
            let requester = !seat;
            // The requester's last move is the last ply if the answerer is to move, else the
            // one before.
            let plies = if self.turn() == seat { 1 } else { 2 };
            for _ in 0..plies {
                self.game.pop();
            }
            self.takeback_offer = None;
            self.draw_offer = None;
            self.turn_began = now;
            if let Some(c) = self.corr.as_mut() {
                c.turn(now);
            }
            debug_assert_eq!(self.turn(), requester);
            if let Some(c) = self.clock.as_mut() {
                if self.game.len() >= 2 {
                    c.resume(requester, now);
                } else {
                    c.stop(now);
                }
            }
            Ok(())
        } else {
            if self.own_last_ply(seat).is_none() {
                return Err(Refusal::NothingToTakeBack);
            }
            self.takeback_offer = Some(seat);
            Ok(())
        }
    }

    fn first_mover(&self) -> Color {
        self.game.start().turn()
    }

    /// The index of `seat`'s last move, if it has made one.
    fn own_last_ply(&self, seat: Color) -> Option<usize> {
        let n = self.game.len();
        let last_mover = |ply: usize| -> Color {
            // ply 0 was played by the start position's side to move.
            if ply.is_multiple_of(2) {
                self.first_mover()
            } else {
                !self.first_mover()
            }
        };
        (n.saturating_sub(2)..n)
            .rev()
            .find(|&p| last_mover(p) == seat)
    }

    pub fn takeback_no(&mut self, _seat: Color) -> Result<(), Refusal> {
        self.playing()?;
        self.takeback_offer
            .take()
            .map(|_| ())
            .ok_or(Refusal::NoOffer("takeback request"))
    }

    /// `/rematch/yes` after the game: asks for a rematch, or accepts the opponent's request.
    /// `Ok(true)` when both want one (the caller starts it, colours swapped).
    pub fn rematch_yes(&mut self, seat: Color) -> Result<bool, Refusal> {
        if self.end.is_none() {
            return Err(Refusal::NotOver);
        }
        if self.rematch_offer == Some(!seat) {
            self.rematch_offer = None;
            return Ok(true);
        }
        self.rematch_offer = Some(seat);
        Ok(false)
    }

    /// `/rematch/no`: declines the opponent's request or withdraws one's own.
    pub fn rematch_no(&mut self, _seat: Color) -> Result<(), Refusal> {
        if self.end.is_none() {
            return Err(Refusal::NotOver);
        }
        self.rematch_offer
            .take()
            .map(|_| ())
            .ok_or(Refusal::NoOffer("rematch request"))
    }

    /// A connection of `seat` opened.
    pub fn connect(&mut self, seat: Color) {
        self.connections[i(seat)] += 1;
        self.gone_since[i(seat)] = None;
    }

    /// A connection of `seat` closed at `now`.
    pub fn disconnect(&mut self, seat: Color, now: u64) {
        let c = &mut self.connections[i(seat)];
        *c = c.saturating_sub(1);
        if *c == 0 {
            self.gone_since[i(seat)] = Some(now);
        }
    }

    pub fn is_connected(&self, seat: Color) -> bool {
        self.connections[i(seat)] > 0
    }

    /// How long `seat` has been gone at `now` (0 while connected).
    pub fn gone_for(&self, seat: Color, now: u64) -> u64 {
        self.gone_since[i(seat)].map_or(0, |t| now.saturating_sub(t))
    }

    /// How long a side may be gone before the other may claim: the time control's grace
    /// period (15/30/60 s by speed), 60 s in games without a clock.
    pub fn grace_period(&self) -> u64 {
        self.clock
            .as_ref()
            .map_or(60_000, |c| c.time_control().grace_period())
    }

    /// `/claim-victory` (or a draw with `victory` false) by `seat` when the opponent has been
    /// gone for the grace period.
    pub fn claim(&mut self, seat: Color, victory: bool, now: u64) -> Result<(), Refusal> {
        self.playing()?;
        if self.corr.is_some() {
            return Err(Refusal::Correspondence);
        }
        let gone = self.gone_for(!seat, now);
        let grace = self.grace_period();
        if self.is_connected(!seat) || gone < grace {
            return Err(Refusal::OpponentNotGone {
                wait_ms: if self.is_connected(!seat) {
                    grace
                } else {
                    grace - gone
                },
            });
        }
        let winner = victory.then_some(seat);
        self.finish(End::Claimed { winner }, now);
        Ok(())
    }

    /// The remaining times (Red, Black) at `now`, if the game has a clock.
    pub fn times(&self, now: u64) -> Option<[u64; 2]> {
        self.clock
            .as_ref()
            .map(|c| [c.remaining(Color::Red, now), c.remaining(Color::Black, now)])
    }

    /// The outcome in the rules' terms, for records.
    pub fn outcome(&self) -> Option<Outcome> {
        match &self.end {
            Some(End::Ruled(r)) => Some(r.outcome),
            _ => None,
        }
    }

    /// The ruling, when the game ended by the rules game.
    pub fn ruling(&self) -> Option<&Ruling> {
        match &self.end {
            Some(End::Ruled(r)) => Some(r),
            _ => None,
        }
    }

    /// The Chinese account of the end.
    pub fn end_text_zh(&self) -> Option<String> {
        self.end_text_in(Lang::Zh)
    }

    /// The plain English account of the end.
    pub fn end_text(&self) -> Option<String> {
        self.end_text_in(Lang::En)
    }

    /// The account of the end in every language, by the web app's language code (`en`,
    /// `zh-Hans`, `zh-Hant`, `vi`).
    pub fn end_texts(&self) -> Option<BTreeMap<String, String>> {
        self.end.as_ref()?;
        Some(
            Lang::ALL
                .iter()
                .filter_map(|&l| Some((l.web_code().to_owned(), self.end_text_in(l)?)))
                .collect(),
        )
    }

    /// The account of the end in `lang`.
    pub fn end_text_in(&self, lang: Lang) -> Option<String> {
        Some(match self.end.as_ref()? {
            End::Ruled(r) => match lang {
                Lang::En => r.to_string(),
                l => r.text(&self.game, l),
            },
            End::Aborted => match lang {
                Lang::En => "The game was aborted.".into(),
                Lang::Zh => "对局已中止。".into(),
                Lang::ZhHant => "對局已中止。".into(),
                Lang::Vi => "Ván cờ đã bị hủy.".into(),
            },
            End::Claimed { winner: Some(w) } => {
                let (w, o) = (side_in(lang, *w), side_in(lang, !*w));
                match lang {
                    Lang::En => {
                        format!("{w} wins: {o} left the game and did not come back in time.")
                    }
                    Lang::Zh => format!("{w}胜：{o}离开对局，未在限时内返回。"),
                    Lang::ZhHant => format!("{w}勝：{o}離開對局，未在限時內返回。"),
                    Lang::Vi => format!("{w} thắng: {o} đã rời ván cờ và không quay lại kịp."),
                }
            }
            End::Claimed { winner: None } => match lang {
                Lang::En => "Draw: a player left the game and did not come back in time.".into(),
                Lang::Zh => "和棋：一方离开对局，未在限时内返回。".into(),
                Lang::ZhHant => "和棋：一方離開對局，未在限時內返回。".into(),
                Lang::Vi => "Hòa: một bên đã rời ván cờ và không quay lại kịp.".into(),
            },
        })
    }
}

/// A side's name in `lang`, as the accounts of a claimed game write it.
fn side_in(lang: Lang, c: Color) -> &'static str {
    match (lang, c) {
        (Lang::En, Color::Red) => "Red",
        (Lang::En, Color::Black) => "Black",
        (Lang::Zh, Color::Red) => "红方",
        (Lang::Zh, Color::Black) => "黑方",
        (Lang::ZhHant, Color::Red) => "紅方",
        (Lang::ZhHant, Color::Black) => "黑方",
        (Lang::Vi, Color::Red) => "Đỏ",
        (Lang::Vi, Color::Black) => "Đen",
    }
}

/// A user's text, shortened for an error message.
fn clip(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(MAX).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xiangqi::Position;

    fn names() -> [String; 2] {
        ["R".into(), "B".into()]
    }

    fn live(tc: Option<TimeControl>) -> LiveGame {
        LiveGame::new(Game::new(Position::new()), tc, names(), 0)
    }

    fn tc(initial: u64, increment: u64) -> Option<TimeControl> {
        Some(TimeControl { initial, increment })
    }

    #[test]
    fn moves_in_any_notation_and_turn_order() {
        let mut g = live(None);
        assert_eq!(g.status(), Status::Created);
        assert_eq!(g.play(Color::Black, "h9g7", 1), Err(Refusal::NotYourTurn));
        g.play(Color::Red, "C2.5", 1).unwrap();
        assert_eq!(g.status(), Status::Started);
        g.play(Color::Black, "马8进7", 2).unwrap();
        g.play(Color::Red, "H0-G2", 3).unwrap();
        assert_eq!(g.game.len(), 3);
        let e = g.play(Color::Black, "a9a5", 4).unwrap_err();
        assert_eq!(e.status_code(), 422);
        assert!(e.to_string().contains("a9a5"), "{e}");
        let long = "x".repeat(5000);
        let e = g.play(Color::Black, &long, 4).unwrap_err();
        assert!(e.to_string().len() < 200, "the message is shortened: {e}");
    }

    #[test]
    fn abort_only_until_each_side_has_moved() {
        let mut g = live(tc(60_000, 0));
        g.play(Color::Red, "h2e2", 1).unwrap();
        assert!(g.abortable());
        let mut a = g.clone();
        a.abort(Color::Black, 2).unwrap();
        assert_eq!(a.status(), Status::Aborted);
        assert_eq!(a.play(Color::Black, "h9g7", 3), Err(Refusal::GameOver));
        g.play(Color::Black, "h9g7", 2).unwrap();
        assert_eq!(g.abort(Color::Red, 3), Err(Refusal::TooLateToAbort));
    }

    #[test]
    fn the_server_aborts_a_game_whose_first_move_is_not_made() {
        let mut g = live(tc(300_000, 0));
        assert_eq!(g.next_deadline(0), Some(30_000));
        assert!(!g.tick(29_999));
        assert!(g.tick(30_000));
        assert_eq!(g.status(), Status::Aborted);
    }

    #[test]
    fn the_flag_falls_on_the_server_with_nobody_connected() {
        let mut g = live(tc(2_000, 0));
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.play(Color::Black, "h9g7", 100).unwrap();
        // Red's time runs from 100; with the lag credit of 300 ms it falls at 2,400.
        assert_eq!(g.next_deadline(100), Some(2_300));
        assert!(!g.tick(2_399));
        assert!(g.tick(2_400));
        assert_eq!(g.status(), Status::OutOfTime);
        assert_eq!(g.winner(), Some(Color::Black));
        assert!(g.end_text().unwrap().contains("time"), "{:?}", g.end_text());
        assert_eq!(
            g.times(99_999),
            Some([0, 2_000]),
            "the clocks stop at the fall"
        );
    }

    #[test]
    fn a_flag_is_a_draw_when_the_other_side_cannot_mate() {
        // Black has only its general and an advisor.
        let pos = Position::from_fen("3ak4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1").unwrap();
        let mut g = LiveGame::new(Game::new(pos), tc(1_000, 0), names(), 0);
        g.play(Color::Red, "a1a2", 0).unwrap();
        g.play(Color::Black, "e9e8", 0).unwrap();
        assert!(g.tick(5_000));
        assert_eq!(g.status(), Status::OutOfTime);
        assert_eq!(g.winner(), None);
        assert!(g
            .end_text()
            .unwrap()
            .starts_with("Draw: red ran out of time"));
    }

    #[test]
    fn a_move_after_the_flag_fell_loses() {
        let mut g = live(tc(1_000, 0));
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.play(Color::Black, "h9g7", 0).unwrap();
        assert_eq!(g.play(Color::Red, "h0g2", 5_000), Err(Refusal::GameOver));
        assert_eq!(g.status(), Status::OutOfTime);
        assert_eq!(g.game.len(), 2);
    }

    #[test]
    fn draw_offers_are_answered_or_declined_by_a_move() {
        let mut g = live(None);
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.draw_yes(Color::Red, 1).unwrap();
        assert_eq!(g.draw_offer, Some(Color::Red));
        // Black moves instead: declined.
        g.play(Color::Black, "h9g7", 2).unwrap();
        assert_eq!(g.draw_offer, None);
        assert_eq!(g.draw_no(Color::Red), Err(Refusal::NoOffer("draw offer")));
        g.draw_yes(Color::Black, 3).unwrap();
        g.draw_yes(Color::Red, 4).unwrap();
        assert_eq!(g.status(), Status::Draw);
        assert_eq!(g.winner(), None);
        assert_eq!(g.outcome().unwrap().reason, Reason::Agreement);
    }

    #[test]
    fn takebacks_take_back_the_requesters_move() {
        let mut g = live(tc(60_000, 0));
        assert_eq!(
            g.takeback_yes(Color::Red, 0),
            Err(Refusal::NothingToTakeBack)
        );
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.play(Color::Black, "h9g7", 1).unwrap();
        g.play(Color::Red, "h0g2", 2).unwrap();
        // Red asks while Black is to move: one ply goes.
        g.takeback_yes(Color::Red, 3).unwrap();
        assert_eq!(g.takeback_offer, Some(Color::Red));
        g.takeback_yes(Color::Black, 4).unwrap();
        assert_eq!(g.game.len(), 2);
        assert_eq!(g.turn(), Color::Red);
        // Black asks while Red is to move: Black's move and nothing else of Red's goes.
        g.takeback_yes(Color::Black, 5).unwrap();
        g.takeback_yes(Color::Red, 6).unwrap();
        assert_eq!(g.game.len(), 1);
        assert_eq!(g.turn(), Color::Black);
        // A declined request changes nothing.
        g.takeback_yes(Color::Red, 7).unwrap();
        g.takeback_no(Color::Black).unwrap();
        assert_eq!(g.game.len(), 1);
        assert_eq!(g.takeback_offer, None);
    }

    #[test]
    fn victory_can_be_claimed_after_the_grace_period() {
        let mut g = live(tc(60_000, 0));
        g.connect(Color::Red);
        g.connect(Color::Black);
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.play(Color::Black, "h9g7", 0).unwrap();
        assert!(matches!(
            g.claim(Color::Red, true, 1),
            Err(Refusal::OpponentNotGone { .. })
        ));
        g.disconnect(Color::Black, 1_000);
        let e = g.claim(Color::Red, true, 10_000).unwrap_err();
        assert_eq!(e, Refusal::OpponentNotGone { wait_ms: 6_000 });
        // Black comes back and leaves again: the count starts again.
        g.connect(Color::Black);
        g.disconnect(Color::Black, 12_000);
        assert!(g.claim(Color::Red, true, 26_999).is_err());
        g.claim(Color::Red, true, 27_000).unwrap();
        assert_eq!(g.status(), Status::Timeout);
        assert_eq!(g.winner(), Some(Color::Red));
        assert_eq!(
            g.end_text().unwrap(),
            "Red wins: Black left the game and did not come back in time."
        );
        // In every language of the app.
        let texts = g.end_texts().unwrap();
        assert_eq!(
            texts.keys().map(String::as_str).collect::<Vec<_>>(),
            ["en", "vi", "zh-Hans", "zh-Hant"]
        );
        assert_eq!(texts["zh-Hans"], "红方胜：黑方离开对局，未在限时内返回。");
        assert_eq!(texts["zh-Hant"], "紅方勝：黑方離開對局，未在限時內返回。");
        assert_eq!(
            texts["vi"],
            "Đỏ thắng: Đen đã rời ván cờ và không quay lại kịp."
        );
        assert_eq!(g.end_text_zh().as_deref(), Some(texts["zh-Hans"].as_str()));
        // An aborted game too; a game that goes on has none.
        let mut a = live(None);
        assert_eq!(a.end_texts(), None);
        a.abort(Color::Red, 1).unwrap();
        assert_eq!(a.end_text_in(Lang::ZhHant).as_deref(), Some("對局已中止。"));
        assert_eq!(
            a.end_text_in(Lang::Vi).as_deref(),
            Some("Ván cờ đã bị hủy.")
        );
    }

    #[test]
    fn rule_endings_come_from_the_rules_game() {
        // Red checks with its chariot on every move; the 8th move makes the third repetition.
        let pos = Position::from_fen("9/4k4/9/9/9/9/9/9/2p6/3K1RBc1 w - - 0 1").unwrap();
        let mut g = LiveGame::new(Game::new(pos), tc(60_000, 1_000), names(), 0);
        for (n, m) in [
            "f0e0", "e8f8", "e0f0", "f8e8", "f0e0", "e8f8", "e0f0", "f8e8",
        ]
        .iter()
        .enumerate()
        {
            let seat = if n % 2 == 0 { Color::Red } else { Color::Black };
            g.play(seat, m, n as u64 * 100).unwrap();
        }
        assert_eq!(g.status(), Status::PerpetualCheck);
        assert_eq!(g.winner(), Some(Color::Black));
        assert!(g.end_text().unwrap().contains("perpetual check"));
        assert_eq!(
            g.clock.as_ref().unwrap().running(),
            None,
            "the clock stops at the end"
        );
        assert_eq!(g.next_deadline(1_000), None);
    }

    fn corr(days: u32) -> LiveGame {
        // Days of 1,000 ms; the wall time of "now" 0 is 5,000.
        let mut g = live(None);
        g.set_correspondence(Days::new(days).unwrap(), 1_000, 5_000, None, 0);
        g
    }

    #[test]
    fn a_correspondence_turn_lasts_its_days_and_is_lost_after() {
        let mut g = corr(3);
        assert_eq!(g.corr.unwrap().deadline, Some(8_000));
        assert_eq!(g.next_deadline(1_000), Some(2_000));
        g.play(Color::Red, "h2e2", 2_500).unwrap();
        // Black's turn: three days from the move.
        assert_eq!(g.corr.unwrap().deadline, Some(10_500));
        g.play(Color::Black, "h9g7", 4_000).unwrap();
        assert_eq!(g.corr.unwrap().left(4_000), Some(3_000));
        assert!(!g.tick(6_999), "no first-move limit, no clock");
        // No claim while the opponent is away: they have until the deadline.
        assert_eq!(
            g.claim(Color::Black, true, 6_999),
            Err(Refusal::Correspondence)
        );
        assert!(g.tick(7_000));
        assert_eq!(g.status(), Status::OutOfTime);
        assert_eq!(g.winner(), Some(Color::Black));
        assert_eq!(g.corr.unwrap().deadline, None, "no deadline once over");
        assert_eq!(g.next_deadline(7_000), None);
    }

    #[test]
    fn a_correspondence_move_after_the_deadline_loses_and_a_first_one_aborts() {
        let mut g = corr(1);
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.play(Color::Black, "h9g7", 500).unwrap();
        assert_eq!(g.play(Color::Red, "h0g2", 1_500), Err(Refusal::GameOver));
        assert_eq!(g.status(), Status::OutOfTime);
        let mut g = corr(1);
        g.play(Color::Red, "h2e2", 0).unwrap();
        assert!(g.tick(1_000));
        assert_eq!(g.status(), Status::Aborted, "Black never made a first move");
        // Abort is possible before both have moved.
        let mut g = corr(2);
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.abort(Color::Black, 10).unwrap();
        assert_eq!(g.status(), Status::Aborted);
    }

    #[test]
    fn a_restored_correspondence_game_keeps_its_deadline() {
        let mut g = LiveGame::restore(g0(), None, None, names(), None, 100);
        g.set_correspondence(Days::new(5).unwrap(), 1_000, 5_000, Some(9_999), 100);
        assert_eq!(g.corr.unwrap().deadline, Some(9_999));
        assert_eq!(g.next_deadline(100), Some(9_999 - 5_100));
    }

    fn g0() -> Game {
        let mut g = Game::new(Position::new());
        for m in ["h2e2", "h9g7"] {
            let mv = Notation::guess(m).unwrap().read(g.position(), m).unwrap();
            g.push_unchecked(mv);
        }
        g
    }

    #[test]
    fn a_restored_game_resumes_its_clock_from_the_restart() {
        let mut g = live(tc(60_000, 0));
        g.play(Color::Red, "h2e2", 0).unwrap();
        g.play(Color::Black, "h9g7", 0).unwrap();
        let snap = g.clock.as_ref().unwrap().snapshot(10_000);
        let back = LiveGame::restore(
            g.game.clone(),
            tc(60_000, 0),
            Some(snap),
            names(),
            None,
            500_000,
        );
        assert_eq!(back.times(500_000), Some([50_000, 60_000]));
        assert_eq!(back.times(501_000), Some([49_000, 60_000]));
    }
}
