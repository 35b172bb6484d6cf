//! The lobby: open seeks (a time control and a side), listed live to everyone. A seek lives as
//! long as its creator's connection: it goes when taken or when the creator leaves.

use serde::{Deserialize, Serialize};

use super::clock::TimeControl;

/// The side a seek's creator wants.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SideWish {
    Red,
    Black,
    Random,
}

impl SideWish {
    pub fn parse(s: &str) -> Option<SideWish> {
        match s {
            "red" => Some(SideWish::Red),
            "black" => Some(SideWish::Black),
            "random" => Some(SideWish::Random),
            _ => None,
        }
    }
}

/// One open seek as the lobby lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Seek {
    pub id: String,
    pub name: String,
    /// Initial time and increment in seconds (`null`: no clock).
    #[schema(required)]
    pub limit: Option<u64>,
    #[schema(required)]
    pub increment: Option<u64>,
    pub color: SideWish,
    /// Correspondence: days per move (then `limit` and `increment` are `null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
    /// Rated (only accounts may take it) or casual.
    pub rated: bool,
    /// The account that opened it, with its rating of the seek's speed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisional: Option<bool>,
    #[serde(skip)]
    pub user_id: Option<i64>,
    #[serde(skip)]
    pub tc: Option<TimeControl>,
}

/// A line of the lobby's stream, `{"type": "seeks", "seeks": [...]}`: what the hub writes and
/// what the OpenAPI document describes.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SeeksLine<'a> {
    /// `seeks`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The open seeks, oldest first.
    pub seeks: &'a [Seek],
}

impl SeeksLine<'_> {
    /// The line as the stream sends it, ending in a newline.
    pub fn line(seeks: &[Seek]) -> String {
        let line = SeeksLine {
            kind: "seeks",
            seeks,
        };
        // A struct of strings, numbers and booleans: serializing it cannot fail.
        let mut s = serde_json::to_string(&line).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// The open seeks, oldest first.
#[derive(Debug, Default)]
pub struct Lobby {
    seeks: Vec<Seek>,
}

/// The most seeks open at once (more are refused until some go).
pub const MAX_SEEKS: usize = 500;

impl Lobby {
    /// Adds a seek; `false` when the lobby is full.
    pub fn add(&mut self, seek: Seek) -> bool {
        if self.seeks.len() >= MAX_SEEKS {
            return false;
        }
        self.seeks.push(seek);
        true
    }

    /// Takes a seek out (taken, or its creator left); `None` if it is gone already.
    pub fn remove(&mut self, id: &str) -> Option<Seek> {
        let i = self.seeks.iter().position(|s| s.id == id)?;
        Some(self.seeks.remove(i))
    }

    pub fn list(&self) -> &[Seek] {
        &self.seeks
    }
}

impl Seek {
    pub fn new(id: String, name: String, tc: Option<TimeControl>, color: SideWish) -> Seek {
        Seek {
            id,
            name,
            limit: tc.map(|t| t.initial / 1000),
            increment: tc.map(|t| t.increment / 1000),
            color,
            days: None,
            rated: false,
            user: None,
            rating: None,
            provisional: None,
            user_id: None,
            tc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeks_come_and_go() {
        let mut l = Lobby::default();
        let tc = Some(TimeControl {
            initial: 300_000,
            increment: 3_000,
        });
        assert!(l.add(Seek::new("a".into(), "Ann".into(), tc, SideWish::Random)));
        assert!(l.add(Seek::new("b".into(), "Bo".into(), None, SideWish::Red)));
        assert_eq!(l.list().len(), 2);
        let v = serde_json::to_value(&l.list()[0]).unwrap();
        assert_eq!(v["limit"], 300);
        assert_eq!(v["increment"], 3);
        assert_eq!(v["color"], "random");
        assert!(v.get("tc").is_none());
        assert_eq!(l.remove("a").unwrap().name, "Ann");
        assert!(l.remove("a").is_none(), "a seek is taken once");
        assert_eq!(l.list().len(), 1);
        assert_eq!(SideWish::parse("black"), Some(SideWish::Black));
        assert_eq!(SideWish::parse("blue"), None);
    }
}
