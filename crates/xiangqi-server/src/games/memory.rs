//! The games in memory: each loaded game behind its own lock, so changes to one game are
//! checked and stored one at a time while different games proceed side by side.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{replay, GameError, GameResult, Loaded};
use crate::lines::parse_lines;
use crate::store::{Store, Write};

/// How many games are kept in memory before idle ones are dropped.
const MAX_CACHED: usize = 4096;

type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

/// The games in memory, each behind its own lock, loaded from the store on first use.
#[derive(Default)]
pub struct Games {
    map: Mutex<HashMap<i64, Slot>>,
}

impl Games {
    /// The slot of game `id` (loading it on first use); `None` if there is no such game.
    async fn slot(&self, store: &Store, id: i64) -> GameResult<Option<Slot>> {
        let slot = {
            let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
            if map.len() >= MAX_CACHED && !map.contains_key(&id) {
                // Forget games nobody is using; they are read again from the store when needed.
                map.retain(|_, s| Arc::strong_count(s) > 1);
            }
            map.entry(id)
                .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(None)))
                .clone()
        };
        {
            let mut g = slot.lock().await;
            if g.is_none() {
                match store.load(id).await? {
                    Some((row, moves, lines, notes)) => {
                        let game = replay(&row, &moves)?;
                        let lines = parse_lines(game.start(), &lines);
                        let notes = notes.into_iter().collect();
                        *g = Some(Loaded {
                            row,
                            game,
                            lines,
                            notes,
                        });
                    }
                    None => {
                        drop(g);
                        self.forget(id);
                        return Ok(None);
                    }
                }
            }
        }
        Ok(Some(slot))
    }

    /// Runs `f` on game `id` while holding its lock.
    pub async fn with<T, E: From<GameError>>(
        &self,
        store: &Store,
        id: i64,
        f: impl AsyncFnOnce(&mut Loaded) -> Result<T, E>,
    ) -> Result<T, E> {
        let slot = self.slot(store, id).await?.ok_or(GameError::NotFound(id))?;
        let mut guard = slot.lock().await;
        let loaded = guard.as_mut().ok_or(GameError::NotFound(id))?;
        f(loaded).await
    }

    /// Deletes game `id` from the store and from memory, holding its lock while doing so
    /// (so no move is stored into a deleted game).
    pub async fn delete(&self, store: &Store, id: i64) -> GameResult<()> {
        let slot = self.slot(store, id).await?.ok_or(GameError::NotFound(id))?;
        let mut g = slot.lock().await;
        store.write(Write::Delete { id }).await?;
        *g = None;
        drop(g);
        self.forget(id);
        Ok(())
    }

    /// Drops a game from memory (after deleting it, or when it is not found).
    fn forget(&self, id: i64) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.remove(&id);
    }

    /// Puts a freshly created game in memory.
    pub fn insert(&self, loaded: Loaded) {
        let id = loaded.row.id;
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(id, Arc::new(tokio::sync::Mutex::new(Some(loaded))));
    }
}

/// Runs a change to a game to completion even if the client goes away: the in-memory game
/// and the store must not part (a dropped request could otherwise leave a committed move out
/// of memory).
pub async fn detached<T: Send + 'static, E: From<GameError> + Send + 'static>(
    f: impl std::future::Future<Output = Result<T, E>> + Send + 'static,
) -> Result<T, E> {
    tokio::spawn(f)
        .await
        .map_err(|e| GameError::Task(e.to_string()))?
}
