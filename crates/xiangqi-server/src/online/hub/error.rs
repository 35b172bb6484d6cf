//! Why the hub refuses a request, and how a refusal travels between nodes.

use crate::online::cluster::Remote;
use crate::online::live::Refusal;
use crate::online::token::RandomError;
use crate::store::StoreError;

/// Why the hub refuses a request; the API maps each to its HTTP status.
#[derive(Debug)]
pub enum OnlineError {
    /// No such live game (404).
    NotFound,
    /// No such challenge (or it was answered) (404).
    NoChallenge,
    /// A seat's action without a token (401).
    NoToken,
    /// A token that is not a seat's of this game (403).
    WrongToken,
    /// The game refuses the operation (409 or 422).
    Refused(Refusal),
    /// A malformed request (400), naming the field.
    Bad {
        field: &'static str,
        msg: String,
    },
    /// A well-formed value the operation cannot take (422), naming the field: a chat line
    /// empty once trimmed, or too long (as a move's text is).
    Unprocessable {
        field: &'static str,
        msg: String,
    },
    /// Too many seeks or games open (503).
    Full(&'static str),
    /// A rated seek taken without an account (401).
    NeedsAccount,
    /// An account taking its own seek (409).
    OwnSeek,
    Store(StoreError),
    Random(RandomError),
    /// Refused by the game's owner on another node (its HTTP status and message).
    Remote(Remote),
    /// The game's node or Redis cannot be reached now (503).
    Unavailable(String),
    /// Not allowed for this caller (403): a spectator in the players' chat ...
    Forbidden(String),
    /// This needs an account (401): writing in the spectators' chat.
    LogIn(String),
    /// Too many chat lines in a short time (429): try again in this many seconds.
    TooFast {
        what: &'static str,
        retry: u64,
    },
}

impl std::fmt::Display for OnlineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OnlineError::NotFound => f.write_str("no such live game"),
            OnlineError::NoChallenge => {
                f.write_str("no such challenge (or it was accepted, declined or cancelled)")
            }
            OnlineError::NoToken => {
                f.write_str("this needs a seat's token (Authorization: Bearer TOKEN)")
            }
            OnlineError::WrongToken => f.write_str("this token holds no seat in this game"),
            OnlineError::Refused(r) => r.fmt(f),
            OnlineError::Bad { msg, .. } | OnlineError::Unprocessable { msg, .. } => {
                f.write_str(msg)
            }
            OnlineError::Full(what) => write!(f, "too many {what} open; try again later"),
            OnlineError::NeedsAccount => f.write_str(
                "a rated seek can be taken only by an account: log in (or send a personal API token)",
            ),
            OnlineError::OwnSeek => f.write_str("this is your own seek"),
            OnlineError::Store(e) => e.fmt(f),
            OnlineError::Random(e) => e.fmt(f),
            OnlineError::Remote(r) => f.write_str(&r.msg),
            OnlineError::Unavailable(m) => f.write_str(m),
            OnlineError::Forbidden(m) | OnlineError::LogIn(m) => f.write_str(m),
            OnlineError::TooFast { what, retry } => {
                write!(f, "too many {what}; wait {retry} s")
            }
        }
    }
}

impl From<StoreError> for OnlineError {
    fn from(e: StoreError) -> OnlineError {
        OnlineError::Store(e)
    }
}

impl From<RandomError> for OnlineError {
    fn from(e: RandomError) -> OnlineError {
        OnlineError::Random(e)
    }
}

impl From<Refusal> for OnlineError {
    fn from(r: Refusal) -> OnlineError {
        OnlineError::Refused(r)
    }
}

pub(super) fn unavailable(e: redis::RedisError) -> OnlineError {
    OnlineError::Unavailable(format!(
        "the live games' Redis cannot be reached ({e}); try again"
    ))
}

/// A refusal as another node is told it.
pub(super) fn remote_of(e: OnlineError) -> Remote {
    let retry = match &e {
        OnlineError::TooFast { retry, .. } => Some(*retry),
        _ => None,
    };
    let (status, field) = match &e {
        OnlineError::NotFound | OnlineError::NoChallenge => (404, None),
        OnlineError::NoToken | OnlineError::NeedsAccount => (401, None),
        OnlineError::OwnSeek => (409, None),
        OnlineError::WrongToken => (403, None),
        OnlineError::Refused(r) => (r.status_code(), None),
        OnlineError::Bad { field, .. } => (400, Some(field.to_string())),
        OnlineError::Unprocessable { field, .. } => (422, Some(field.to_string())),
        OnlineError::Full(_) | OnlineError::Unavailable(_) => (503, None),
        OnlineError::Store(_) | OnlineError::Random(_) => (500, None),
        OnlineError::Remote(r) => (r.status, r.field.clone()),
        OnlineError::Forbidden(_) => (403, None),
        OnlineError::LogIn(_) => (401, None),
        OnlineError::TooFast { .. } => (429, None),
    };
    Remote {
        status,
        msg: e.to_string(),
        field,
        retry,
    }
}
