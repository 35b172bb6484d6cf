//! The players' actions and the commits they make: new games, moves, offers, rematches.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use xiangqi::{Color, Game, Position};

use super::codec::{change_of, row_of};
use super::error::{unavailable, OnlineError};
use super::{
    lock, wall_ms, Action, Created, Credential, Hub, NewLive, NewSeats, Room, RoomState, SeatKey,
    MAX_ROOMS, OWNER_TTL,
};
use crate::online::cluster::{lease_key, owner_key, Op, WireCred, GAMES, LEASE_TTL, LEASE_VALID};
use crate::online::events::Event;
use crate::online::live::{LiveGame, Status};
use crate::online::token::{self, Token};
use crate::rating::Speed;
use crate::store::accounts::AccountWrite;
use crate::store::live::LiveWrite;
use crate::store::{StoreError, Write};

impl Hub {
    /// Creates a live game; the caller hands out the tokens.
    pub async fn create(self: &Arc<Self>, new: NewLive) -> Result<Created, OnlineError> {
        self.create_from(new, "lobby", None).await
    }

    /// Creates a live game made by `source` (lichess's `friend` or `lobby`), with the id
    /// `id` (an accepted challenge's) or a new one.
    pub async fn create_from(
        self: &Arc<Self>,
        new: NewLive,
        source: &'static str,
        id: Option<String>,
    ) -> Result<Created, OnlineError> {
        if lock(&self.rooms).len() >= MAX_ROOMS {
            return Err(OnlineError::Full("live games"));
        }
        let start = match new.fen.as_deref().map(str::trim) {
            None | Some("") => Position::new(),
            Some(f) => Position::from_fen(f).map_err(|e| OnlineError::Bad {
                field: "fen",
                msg: format!("bad FEN: {e}"),
            })?,
        };
        let game = Game::new(start);
        if game.outcome().is_some() {
            return Err(OnlineError::Bad {
                field: "fen",
                msg: "the position is already decided".into(),
            });
        }
        let id = match id {
            Some(id) => id,
            None => token::game_id()?,
        };
        let tokens = [Token::generate()?, Token::generate()?];
        let keys = [
            SeatKey::of(tokens[0].as_str()),
            SeatKey::of(tokens[1].as_str()),
        ];
        let now = self.now();
        let mut live = LiveGame::new(game, new.tc, new.names, now);
        if let Some(days) = new.days {
            live.set_correspondence(days, self.day_ms(), self.epoch_wall(), None, now);
        }
        self.open_room(id.clone(), live, keys, new.seats, source)
            .await?;
        Ok(Created { id, tokens })
    }

    /// Stores a new live game, puts its room in memory and sets its timer.
    pub(super) async fn open_room(
        self: &Arc<Self>,
        id: String,
        live: LiveGame,
        keys: [SeatKey; 2],
        seats: Option<NewSeats>,
        source: &'static str,
    ) -> Result<Arc<Room>, OnlineError> {
        let now = self.now();
        if let Some(c) = &self.cluster {
            // The lease first: the game is this node's before anyone can ask for it.
            let mut conn = c.conn();
            let _: () = redis::pipe()
                .cmd("SET")
                .arg(lease_key(&id))
                .arg(&self.node)
                .arg("PX")
                .arg(LEASE_TTL)
                .ignore()
                .set_ex(owner_key(&id), &self.node, OWNER_TTL)
                .ignore()
                .sadd(GAMES, &id)
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(unavailable)?;
        }
        let created = wall_ms();
        let row = row_of(&id, &live, &keys, created, now);
        let speed = Speed::of(row.clock);
        let create = Write::Live(LiveWrite::Create { row, moves: vec![] });
        let seats = match seats {
            Some(s) if s.users.iter().any(Option::is_some) => {
                let seats = Write::Account(AccountWrite::Seats {
                    game_id: id.clone(),
                    users: s.users,
                    // Rated only between two accounts.
                    rated: s.rated && s.users.iter().all(Option::is_some),
                    speed,
                });
                self.store.write(Write::Batch(vec![create, seats])).await?;
                self.store.live_seats(&id).await?
            }
            _ => {
                self.store.write(create).await?;
                None
            }
        };
        let room = self.new_room(
            id.clone(),
            RoomState {
                live,
                keys,
                created,
                rematch: None,
                timer: None,
                seats,
                presence: HashMap::new(),
                chat: None,
                chat_times: HashMap::new(),
                source,
            },
        );
        room.valid_until.store(
            if self.cluster.is_some() {
                now + LEASE_VALID
            } else {
                u64::MAX
            },
            Ordering::Relaxed,
        );
        lock(&self.rooms).insert(id.clone(), room.clone());
        {
            let mut st = room.state.lock().await;
            self.schedule(&room, &mut st, 0);
            self.tell_started(&id, &st).await;
        }
        Ok(room)
    }

    pub(super) fn seat_of(
        st: &RoomState,
        cred: Option<Credential<'_>>,
    ) -> Result<Color, OnlineError> {
        let cred = cred.ok_or(OnlineError::NoToken)?;
        Color::ALL
            .into_iter()
            .find(|&c| match cred {
                Credential::Seat(t) => st.keys[c.index()].admits(t),
                Credential::Account(uid) => st
                    .seats
                    .as_ref()
                    .is_some_and(|s| s.users[c.index()].as_ref().is_some_and(|u| u.id == uid)),
            })
            .ok_or(OnlineError::WrongToken)
    }

    /// The write that rates a game that has just ended, when it is rated.
    pub(super) fn rating_write(id: &str, st: &RoomState, next: &LiveGame) -> Option<Write> {
        if !next.is_over() || st.live.is_over() {
            return None;
        }
        let seats = st.seats.as_ref()?;
        if !seats.rated || seats.rated_at.is_some() || next.status() == Status::Aborted {
            return None;
        }
        let score_red = match next.winner() {
            Some(Color::Red) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        };
        Some(Write::Account(AccountWrite::Rate {
            game_id: id.to_owned(),
            score_red,
            at: wall_ms(),
        }))
    }

    /// Writes a change of a room, with the ratings when it ends a rated game; then the room's
    /// accounts are read again (their new ratings).
    pub(super) async fn commit(
        &self,
        room: &Room,
        st: &mut RoomState,
        rate: Option<Write>,
        w: LiveWrite,
        next: &LiveGame,
    ) -> Result<(), StoreError> {
        match rate {
            Some(r) => {
                self.store
                    .write(Write::Batch(vec![Write::Live(w), r]))
                    .await?;
                match self.store.live_seats(&room.id).await {
                    Ok(s) => st.seats = s,
                    Err(e) => eprintln!(
                        "xiangqi serve: live game {}: cannot read its new ratings: {e}",
                        room.id
                    ),
                }
            }
            None => {
                self.store.write(Write::Live(w)).await?;
            }
        }
        self.tell_ended(&room.id, st, next);
        self.tell_finished(&room.id, st, next).await;
        Ok(())
    }

    /// A seat's action in game `id`.
    pub async fn act(
        self: &Arc<Self>,
        id: &str,
        cred: Option<Credential<'_>>,
        action: Action,
    ) -> Result<(), OnlineError> {
        self.call(
            id,
            Op::Act {
                cred: cred.map(WireCred::of),
                action,
            },
        )
        .await
        .map(|_| ())
    }

    pub(super) async fn act_local(
        self: &Arc<Self>,
        room: &Arc<Room>,
        cred: Option<Credential<'_>>,
        action: Action,
    ) -> Result<(), OnlineError> {
        let mut st = room.state.lock().await;
        let seat = Self::seat_of(&st, cred)?;
        let now = self.now();
        let mut next = st.live.clone();
        let before = next.game.len();
        let result = match &action {
            Action::Move(m) => next.play(seat, m, now).map(|_| ()),
            Action::Resign => next.resign(seat, now),
            Action::Abort => next.abort(seat, now),
            Action::Draw(true) => next.draw_yes(seat, now),
            Action::Draw(false) => next.draw_no(seat),
            Action::Takeback(true) => next.takeback_yes(seat, now),
            Action::Takeback(false) => next.takeback_no(seat),
            Action::ClaimVictory => next.claim(seat, true, now),
            Action::ClaimDraw => next.claim(seat, false, now),
            Action::Rematch(true) => match next.rematch_yes(seat) {
                Ok(true) => {
                    drop(next);
                    return self.rematch(room, &mut st).await;
                }
                Ok(false) => Ok(()),
                Err(e) => Err(e),
            },
            Action::Rematch(false) => next.rematch_no(seat),
        };
        // A refused move can still have changed the game: a flag that fell before it came.
        let ended_now = next.is_over() && !st.live.is_over();
        if let Err(r) = &result {
            if !ended_now {
                return Err(r.clone().into());
            }
        }
        let change = change_of(&next, now);
        let after = next.game.len();
        let w = if after == before + 1 {
            LiveWrite::Move {
                id: room.id.clone(),
                ply: before as i64,
                uci: next.game.moves()[before].to_string(),
                change,
            }
        } else if after < before {
            LiveWrite::Truncate {
                id: room.id.clone(),
                ply: after as i64,
                change,
            }
        } else {
            LiveWrite::Update {
                id: room.id.clone(),
                change,
            }
        };
        let rate = Self::rating_write(&room.id, &st, &next);
        self.commit(room, &mut st, rate, w, &next).await?;
        st.live = next;
        room.over.store(st.live.is_over(), Ordering::Relaxed);
        Self::send(room, None, &Self::state_event(&st.live, now));
        self.schedule(room, &mut st, 0);
        result.map_err(OnlineError::from)
    }

    /// Both players asked for a rematch: a new game, colours swapped (each player's token
    /// now holds the other seat), announced on the old game's streams.
    pub(super) async fn rematch(
        self: &Arc<Self>,
        room: &Arc<Room>,
        st: &mut RoomState,
    ) -> Result<(), OnlineError> {
        if let Some(id) = &st.rematch {
            Self::send(room, None, &Event::Rematch { id: id.clone() });
            return Ok(());
        }
        let id = token::game_id()?;
        let now = self.now();
        let tc = st.live.clock.as_ref().map(|c| c.time_control());
        let names = [st.live.names[1].clone(), st.live.names[0].clone()];
        let keys = [st.keys[1].clone(), st.keys[0].clone()];
        let mut live = LiveGame::new(Game::new(st.live.game.start().clone()), tc, names, now);
        if let Some(c) = st.live.corr {
            live.set_correspondence(c.days, self.day_ms(), self.epoch_wall(), None, now);
        }
        let seats = st.seats.as_ref().map(|s| {
            let u = |c: usize| s.users[c].as_ref().map(|u| u.id);
            NewSeats {
                users: [u(1), u(0)],
                rated: s.rated,
            }
        });
        self.open_room(id.clone(), live, keys, seats, "friend")
            .await?;

        self.store
            .write(Write::Live(LiveWrite::Rematch {
                id: room.id.clone(),
                rematch: id.clone(),
            }))
            .await?;
        st.rematch = Some(id.clone());
        st.live.rematch_offer = None;
        Self::send(room, None, &Self::state_event(&st.live, now));
        Self::send(room, None, &Event::Rematch { id });
        Ok(())
    }
}
