//! The API's one error type: a status and a JSON body `{"error": "...", ...}` that names what
//! is wrong. Every refusal reaches the client through it: extractor rejections (body, path,
//! query; see `request`), game operations' [`GameError`]s, store and engine failures.

use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::games::{Ending, GameError, ImportFailure};

/// The JSON body of an error: the message, and fields that help a client act on it.
#[derive(Debug, Default, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Ending>)]
    pub outcome: Option<Box<Ending>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ImportFailure>>,
}

/// An API error: a status and a JSON body.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: Box<ErrorBody>,
    /// Seconds for a `Retry-After` header (a limit reached).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, msg: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: Box::new(ErrorBody {
                error: msg.into(),
                ..ErrorBody::default()
            }),
            retry_after: None,
        }
    }

    /// `503`: the database cannot be reached now; try again in a second.
    pub fn unavailable(msg: impl Into<String>) -> ApiError {
        let mut a = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, msg);
        a.retry_after = Some(1);
        a
    }

    /// `400`: malformed input.
    pub fn bad(msg: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, msg)
    }

    /// Names the request field at fault.
    pub fn field(mut self, name: impl Into<String>) -> ApiError {
        self.body.field = Some(name.into());
        self
    }

    /// Names the index (in a list of the request) at fault.
    pub fn index(mut self, i: usize) -> ApiError {
        self.body.index = Some(i);
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut res = (self.status, Json(self.body)).into_response();
        if let Some(s) = self.retry_after {
            res.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(s),
            );
        }
        res
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let msg = e.to_string();
        match e {
            GameError::NotFound(_) => ApiError::new(StatusCode::NOT_FOUND, msg),
            GameError::Over(ending) => {
                let mut a = ApiError::new(StatusCode::CONFLICT, msg);
                a.body.outcome = Some(ending);
                a
            }
            GameError::StalePly { have, .. } => {
                let mut a = ApiError::new(StatusCode::CONFLICT, msg);
                a.body.ply = Some(have);
                a
            }
            // What the game's state (its moves, its lines, its mode) does not allow.
            GameError::ComputersTurn
            | GameError::NoSuchLine
            | GameError::NoSuchMove { .. }
            | GameError::TakebackTooMany { .. }
            | GameError::NoLegalMove => ApiError::new(StatusCode::CONFLICT, msg),
            // A text that reads as no move, as an illegal one does.
            GameError::EmptyMove | GameError::MoveTooLong(_) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, msg)
            }
            GameError::CommentTooLong(_) | GameError::BadRecord(_) => ApiError::bad(msg),
            GameError::IllegalMove { text, fen, .. } => {
                let mut a = ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, msg);
                a.body.mv = Some(text);
                a.body.fen = Some(fen);
                a
            }
            GameError::AtIndex { index, error } => ApiError::from(*error).index(index),
            GameError::BranchOutsideAnalysis | GameError::BranchTooFar { .. } => {
                ApiError::new(StatusCode::CONFLICT, msg).field("at")
            }
            GameError::BadFen { fen, .. } => {
                let mut a = ApiError::bad(msg);
                a.body.fen = Some(fen);
                a
            }
            GameError::TooManyGames(_) => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, msg),
            GameError::NothingImported(errors) => {
                let mut a = ApiError::bad(msg);
                a.body.errors = Some(errors);
                a
            }
            GameError::Store(e) if e.is_unavailable() => ApiError::unavailable(msg),
            GameError::Store(_) | GameError::Engine(_) | GameError::Task(_) => {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, msg)
            }
        }
    }
}

/// A body that cannot be read: too large (`413`), or cut off.
impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> ApiError {
        let status = r.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(status, "the request body is too large")
        } else {
            ApiError::new(
                status,
                format!("cannot read the request body: {}", r.body_text()),
            )
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError::new(r.status(), r.body_text())
    }
}
