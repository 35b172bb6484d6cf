//! What a game's streams are told (full and state events, the crowd), on every node.

use xiangqi::Color;

use super::{Hub, Msg, Room, RoomState};
use crate::online::cluster::{Wire, EVENTS};
use crate::online::events::{self, Event};
use crate::online::live::LiveGame;
use crate::rating::Speed;

impl Hub {
    /// The `gameFull` event of a room, with its accounts and ratings.
    pub(super) fn full_event(&self, room: &Room, st: &RoomState) -> Event {
        let mut full = events::full(&room.id, &st.live, self.now(), st.live.end_text_zh());
        if let (
            Event::GameFull {
                red,
                black,
                rated,
                speed,
                ..
            },
            Some(seats),
        ) = (&mut full, st.seats.as_ref())
        {
            *rated = seats.rated;
            *speed = Some(seats.speed.as_str());
            for (p, u) in [(red, &seats.users[0]), (black, &seats.users[1])] {
                if let Some(u) = u {
                    p.user = Some(u.name.clone());
                    p.title = u.bot.then_some("BOT");
                    if let Some((r, rd)) = u.before {
                        p.rating = Some(r.round() as i64);
                        p.provisional = Some(rd > crate::rating::PROVISIONAL_RD);
                    }
                    p.rating_diff = u.diff.map(|d| d.round() as i64);
                }
            }
        }
        if let Event::GameFull { speed, .. } = &mut full {
            if speed.is_none() {
                let tc = st.live.clock.as_ref().map(|c| {
                    let t = c.time_control();
                    (t.initial, t.increment)
                });
                *speed = Some(Speed::of(tc).as_str());
            }
        }
        full
    }

    /// Sends a line to the room's streams, on every node.
    pub(super) fn send(room: &Room, to: Option<Color>, e: &Event) {
        Self::send_msg(room, Msg::plain(to.into(), e.line().into()));
    }

    /// Sends `m` to the room's streams, on every node.
    pub(super) fn send_msg(room: &Room, m: Msg) {
        if let Some(c) = &room.cluster {
            c.publish(
                EVENTS.into(),
                &Wire::Line {
                    from: c.node.clone(),
                    game: room.id.clone(),
                    to: m.to.name().map(str::to_owned),
                    line: m.line.to_string(),
                    chat: m.chat,
                    author: m.author,
                },
            );
        }
        let _ = room.chan.tx.send(m);
    }

    pub(super) fn state_event(live: &LiveGame, now: u64) -> Event {
        Event::GameState(events::state(live, now, live.end_text_zh()))
    }

    pub(super) fn crowd(st: &RoomState) -> Event {
        Event::Crowd {
            red: st.live.is_connected(Color::Red),
            black: st.live.is_connected(Color::Black),
            watchers: st.totals()[2] as usize,
        }
    }
}
