//! The server's shared state: the store, the games in memory, the engines for the computer's
//! moves, and the count of open analysis sessions.

use std::sync::Arc;

use crate::accounts::Accounts;
use crate::engine::analysis::Sessions;
use crate::engine::review::Reviews;
use crate::engine::EnginePool;
use crate::games::Games;
use crate::online::hub::Hub;
use crate::store::Store;
use xiangqi_explorer::Explorer;

/// Shared server state (the axum state, behind an `Arc`).
pub struct App {
    pub store: Store,
    pub games: Games,
    /// Bounds the engine searches run at once for computer moves and draw offers, and keeps
    /// their engines (and hash tables) between moves.
    pub engines: EnginePool,
    /// Live analysis sessions open now.
    pub sessions: Sessions,
    /// Live games between people and the lobby.
    pub hub: Arc<Hub>,
    /// Game reviews running in the background, on `engines`.
    pub reviews: Reviews,
    /// Accounts, sessions, API tokens.
    pub accounts: Accounts,
    /// Session cookies are `Secure` (`--https`: the server is reached over https only);
    /// they are too for a request forwarded with `X-Forwarded-Proto: https`.
    pub https: bool,
    /// The opening explorer's index (`--explorer DIR`), when there is one.
    pub explorer: Option<Arc<Explorer>>,
    /// The endgame tablebases (`--tb DIR`), when there are some.
    pub tablebase: Option<Arc<xiangqi_tb::Tablebase>>,
}

impl App {
    pub fn new(store: Store) -> App {
        let hub = Hub::new(store.clone());
        App::with_hub(store, hub)
    }

    /// With a hub of its own (one that shares live games with other nodes).
    pub fn with_hub(store: Store, hub: Arc<Hub>) -> App {
        let engines = EnginePool::per_core();
        App {
            store: store.clone(),
            games: Games::default(),
            reviews: Reviews::new(engines.size()),
            engines,
            sessions: Sessions::default(),
            accounts: Accounts::new(store.clone()),
            hub,
            https: false,
            explorer: None,
            tablebase: None,
        }
    }
}
