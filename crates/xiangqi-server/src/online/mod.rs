//! Online play between people: live games with server-kept clocks, seats held by secret
//! tokens, offers between the players, and the lobby.

pub mod clock;
pub mod cluster;
pub mod corr;
pub mod events;
pub mod hub;
pub mod limits;
pub mod live;
pub mod lobby;
pub mod token;
