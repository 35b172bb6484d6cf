//! The game chat (docs/API.md, "Chat"): two rooms per live game, `player` (the two seats) and
//! `spectator` (logged-in spectators write, every spectator reads; the players read it once
//! the game has ended). A line is an operation on the game's owner like a move: the room is
//! locked, the line numbered, committed to the store, then streamed (on every node), so the
//! lines are in one order everywhere and none is seen before it is durable.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use xiangqi::Color;

use super::error::OnlineError;
use super::{wall_ms, Credential, Hub, Msg, Room, RoomState, To};
use crate::online::cluster::{Op, Payload, WireCred};
use crate::online::events::{ChatLine, Event};
use crate::store::chat::{ChatRow, ChatWrite};
use crate::store::Write;

/// The longest chat line, in characters (after trimming), as lichess's.
pub const MAX_CHAT: usize = 140;
/// A writer may write this many lines in any [`CHAT_WINDOW_MS`]; the next is refused `429`.
pub const CHAT_BURST: usize = 5;
pub const CHAT_WINDOW_MS: u64 = 10_000;
/// The lines of a game kept in memory (the last ones); a history shows at most [`HISTORY`].
const KEEP: usize = 400;
const HISTORY: usize = 200;

/// A game's chat room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChatRoom {
    /// The two players' room.
    Player,
    /// The spectators' room.
    Spectator,
}

impl ChatRoom {
    pub const fn as_str(self) -> &'static str {
        match self {
            ChatRoom::Player => "player",
            ChatRoom::Spectator => "spectator",
        }
    }
}

/// A chat line as written: control characters dropped (line breaks and tabs made spaces),
/// trimmed; refused (naming the field `text`) when empty or longer than [`MAX_CHAT`].
pub fn clean_chat(text: &str) -> Result<String, OnlineError> {
    let s: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .filter(|c| !c.is_control())
        .collect();
    let s = s.trim();
    if s.is_empty() {
        return Err(OnlineError::Unprocessable {
            field: "text",
            msg: "a chat line is empty".into(),
        });
    }
    let n = s.chars().count();
    if n > MAX_CHAT {
        return Err(OnlineError::Unprocessable {
            field: "text",
            msg: format!("a chat line is at most {MAX_CHAT} characters (this one has {n})"),
        });
    }
    Ok(s.to_owned())
}

fn room_name(s: &str) -> &'static str {
    if s == "player" {
        "player"
    } else {
        "spectator"
    }
}

/// The `chatLine` event of a stored line.
pub(super) fn event_of(r: &ChatRow) -> Event {
    Event::ChatLine(ChatLine {
        room: room_name(&r.room),
        username: r.author.clone(),
        text: r.text.clone(),
        user: r.user.clone(),
        seat: match r.seat.as_str() {
            "red" => Some(Color::Red.name()),
            "black" => Some(Color::Black.name()),
            _ => None,
        },
        seq: r.seq,
        at: r.at,
    })
}

impl Hub {
    /// Writes `text` in game `id`'s `room`: as the seat of `cred` (the players' room), or as
    /// `account` (id, name; the spectators' room).
    pub async fn chat(
        self: &Arc<Self>,
        id: &str,
        cred: Option<Credential<'_>>,
        account: Option<(i64, String)>,
        room: ChatRoom,
        text: &str,
    ) -> Result<(), OnlineError> {
        let text = clean_chat(text)?;
        self.call(
            id,
            Op::Chat {
                cred: cred.map(WireCred::of),
                account,
                room,
                text,
            },
        )
        .await
        .map(|_| ())
    }

    /// The chat lines of game `id` that `cred` may read (a seat's: the players' room, and the
    /// spectators' once the game has ended; else the spectators'), each a `chatLine` JSON
    /// object (with its newline), in order.
    pub async fn chat_lines(
        self: &Arc<Self>,
        id: &str,
        cred: Option<Credential<'_>>,
    ) -> Result<Vec<String>, OnlineError> {
        let p = self
            .call(
                id,
                Op::ChatLines {
                    cred: cred.map(WireCred::of),
                },
            )
            .await?;
        Ok(p.extra)
    }

    async fn load_chat(&self, room: &Room, st: &mut RoomState) -> Result<(), OnlineError> {
        if st.chat.is_none() {
            let rows = self.store.chat_lines(&room.id).await?;
            let skip = rows.len().saturating_sub(KEEP);
            st.chat = Some(rows.into_iter().skip(skip).collect());
        }
        Ok(())
    }

    pub(super) async fn chat_local(
        self: &Arc<Self>,
        room: &Arc<Room>,
        cred: Option<Credential<'_>>,
        account: Option<(i64, String)>,
        chat_room: ChatRoom,
        text: String,
    ) -> Result<(), OnlineError> {
        let text = clean_chat(&text)?;
        let mut st = room.state.lock().await;
        let (author, user_id, user, seat) = match chat_room {
            ChatRoom::Player => {
                let seat = Self::seat_of(&st, cred).map_err(|e| match e {
                    OnlineError::WrongToken => OnlineError::Forbidden(
                        "only the two players write in the players' chat".into(),
                    ),
                    e => e,
                })?;
                let u = st
                    .seats
                    .as_ref()
                    .and_then(|s| s.users[seat.index()].as_ref());
                (
                    st.live.names[seat.index()].clone(),
                    u.map(|u| u.id),
                    u.map(|u| u.name.clone()),
                    Some(seat),
                )
            }
            ChatRoom::Spectator => {
                let Some((uid, name)) = account else {
                    return Err(OnlineError::LogIn(
                        "writing in the spectators' chat needs an account: log in (or send a \
                         personal API token)"
                            .into(),
                    ));
                };
                let seated = Self::seat_of(&st, Some(Credential::Account(uid))).is_ok()
                    || cred.is_some_and(|c| Self::seat_of(&st, Some(c)).is_ok());
                if seated && !st.live.is_over() {
                    return Err(OnlineError::Forbidden(
                        "a player writes in the players' chat while the game goes on".into(),
                    ));
                }
                (name.clone(), Some(uid), Some(name), None)
            }
        };
        let key = match (seat, user_id) {
            (Some(s), _) => format!("seat:{}", s.name()),
            (None, Some(u)) => format!("user:{u}"),
            (None, None) => "guest".into(),
        };
        let now = self.now();
        {
            let times = st.chat_times.entry(key.clone()).or_default();
            while times
                .front()
                .is_some_and(|&t| now.saturating_sub(t) >= CHAT_WINDOW_MS)
            {
                times.pop_front();
            }
            if times.len() >= CHAT_BURST {
                let wait = CHAT_WINDOW_MS - now.saturating_sub(times[0]);
                return Err(OnlineError::TooFast {
                    what: "chat lines in a short time",
                    retry: wait.div_ceil(1000).max(1),
                });
            }
        }
        self.load_chat(room, &mut st).await?;
        let seq = st
            .chat
            .as_ref()
            .and_then(VecDeque::back)
            .map_or(0, |l| l.seq + 1);
        let row = ChatRow {
            game_id: room.id.clone(),
            seq,
            room: chat_room.as_str().to_owned(),
            author,
            user_id,
            user,
            seat: seat.map_or("", Color::name).to_owned(),
            text,
            at: wall_ms(),
        };
        // Durable before anyone sees it.
        self.store
            .write(Write::Chat(ChatWrite::Line(row.clone())))
            .await?;
        st.chat_times.entry(key).or_default().push_back(now);
        let line = event_of(&row).line();
        let lines = st.chat.get_or_insert_with(VecDeque::new);
        lines.push_back(row);
        if lines.len() > KEEP {
            lines.pop_front();
        }
        let to = match chat_room {
            ChatRoom::Player => To::Players,
            ChatRoom::Spectator if st.live.is_over() => To::All,
            ChatRoom::Spectator => To::Spectators,
        };
        Self::send_msg(
            room,
            Msg {
                to,
                line: line.into(),
                chat: true,
                author: user_id,
            },
        );
        Ok(())
    }

    pub(super) async fn chat_lines_local(
        self: &Arc<Self>,
        room: &Arc<Room>,
        cred: Option<Credential<'_>>,
    ) -> Result<Payload, OnlineError> {
        let mut st = room.state.lock().await;
        // A seat's token that is not this game's is refused; an account that holds no seat
        // reads as a spectator.
        let seat = match cred {
            None => None,
            Some(Credential::Account(_)) => Self::seat_of(&st, cred).ok(),
            Some(c) => Some(Self::seat_of(&st, Some(c))?),
        };
        self.load_chat(room, &mut st).await?;
        let over = st.live.is_over();
        let shown: Vec<String> = st
            .chat
            .iter()
            .flatten()
            .filter(|l| match seat {
                Some(_) => l.room == "player" || over,
                None => l.room == "spectator",
            })
            .map(|l| event_of(l).line())
            .collect();
        let skip = shown.len().saturating_sub(HISTORY);
        Ok(Payload {
            extra: shown.into_iter().skip(skip).collect(),
            ..Payload::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cleaned_and_limited() {
        assert_eq!(clean_chat("  hi\tthere\n ").unwrap(), "hi there");
        assert_eq!(clean_chat("a\u{7}b\u{1b}[31m").unwrap(), "ab[31m");
        assert_eq!(clean_chat("<b>hi</b>").unwrap(), "<b>hi</b>");
        for bad in ["", "   ", "\u{7}\n"] {
            let e = clean_chat(bad).unwrap_err();
            assert!(
                matches!(e, OnlineError::Unprocessable { field: "text", .. }),
                "{bad:?}"
            );
        }
        assert!(clean_chat(&"好".repeat(MAX_CHAT)).is_ok());
        let e = clean_chat(&"x".repeat(MAX_CHAT + 1))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("at most 140 characters (this one has 141)"),
            "{e}"
        );
    }

    #[test]
    fn audiences() {
        assert!(To::Players.admits(Some(Color::Red)) && !To::Players.admits(None));
        assert!(To::Spectators.admits(None) && !To::Spectators.admits(Some(Color::Black)));
        for t in [To::All, To::Players, To::Spectators, To::Seat(Color::Black)] {
            assert_eq!(To::parse(t.name()), Some(t));
        }
        assert_eq!(To::parse(Some("nobody")), None);
    }
}
