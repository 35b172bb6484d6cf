//! Who holds each game: restores at start, heartbeats, leases, take-overs and sweeps.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use redis::AsyncCommands;

use super::codec::{charge, restore};
use super::error::{unavailable, OnlineError};
use super::seeks::SharedSeek;
use super::{lock, wall_ms, Hub, Room, RoomState, SeatKey, BEAT, OWNER_TTL};
use crate::online::cluster::{
    beat_key, lease_key, owner_key, Wire, BEATS, EVENTS, GAMES, LEASE_TTL, LEASE_VALID, SEEKS,
};
use crate::online::token;
use crate::store::accounts::SeatsRow;
use crate::store::live::LiveRow;
use crate::store::{StoreError, Write};

/// Where an operation on a game runs.
pub(super) enum Route {
    Local(Arc<Room>),
    Remote(String),
}

impl Hub {
    /// Stores that this single node is alive now (its heartbeat; a failure is logged).
    pub(super) async fn beat(&self) {
        let w = Write::Beat {
            node: self.node.clone(),
            at: wall_ms(),
        };
        if let Err(e) = self.store.write(w).await {
            self.log_limited("storing the heartbeat", &e);
        }
    }

    /// A single node's heartbeat in the store, every [`BEAT`], while the hub lives.
    pub(super) fn start_beats(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut next = tokio::time::Instant::now();
            loop {
                next += BEAT;
                tokio::time::sleep_until(next).await;
                let Some(h) = weak.upgrade() else { return };
                h.beat().await;
            }
        });
    }

    /// Brings back every unfinished live game after a restart. The side to move is charged
    /// for its turn up to this node's last heartbeat before it stopped (within [`BEAT`] of
    /// the stop), as on a take-over from a dead node; then the clocks run from now. Starts
    /// the heartbeat. Returns how many. With several nodes, only those no other node owns.
    pub async fn resume_all(self: &Arc<Self>) -> Result<usize, StoreError> {
        let rows = self.store.unfinished_live().await?;
        let mut n = 0;
        if self.cluster.is_some() {
            // Taken side by side: a take-over may wait for a previous owner.
            let tasks: Vec<_> = rows
                .into_iter()
                .map(|(row, _)| {
                    let h = self.clone();
                    tokio::spawn(async move { (h.take(&row.id).await, row.id) })
                })
                .collect();
            for t in tasks {
                match t.await {
                    Ok((Ok(Ok(_)), _)) => n += 1,
                    Ok((Ok(Err(_)), _)) => {}
                    Ok((Err(OnlineError::Store(e)), _)) => return Err(e),
                    Ok((Err(e), id)) => eprintln!("xiangqi serve: live game {id}: {e}"),
                    Err(e) => eprintln!("xiangqi serve: resuming a live game: {e}"),
                }
            }
            return Ok(n);
        }
        // Until its last beat before it stopped, the node ran the clocks: that much of each
        // turn is charged (as on a take-over, `charge`); the time it was down is nobody's.
        let last = self.store.last_beat(&self.node).await?;
        *lock(&self.last_run) = last;
        self.beat().await;
        self.start_beats();
        for (row, moves) in rows {
            let seats = self.store.live_seats(&row.id).await?;
            let room = self.room_of(&row, &moves, seats, charge(last, &row))?;
            let mut st = room.state.lock().await;
            self.schedule(&room, &mut st, 0);
            n += 1;
        }
        Ok(n)
    }

    pub(super) fn room_of(
        &self,
        row: &LiveRow,
        moves: &[String],
        seats: Option<SeatsRow>,
        charge: u64,
    ) -> Result<Arc<Room>, StoreError> {
        let live = restore(
            row,
            moves,
            self.now(),
            charge,
            (self.day_ms(), self.epoch_wall()),
        )?;
        let st = RoomState {
            live,
            keys: [SeatKey(row.keys[0].clone()), SeatKey(row.keys[1].clone())],
            created: row.created,
            rematch: (!row.rematch.is_empty()).then(|| row.rematch.clone()),
            timer: None,
            seats,
            presence: HashMap::new(),
            chat: None,
            chat_times: HashMap::new(),
            // Not stored: a restored game counts as a challenge's.
            source: "friend",
        };
        let room = self.new_room(row.id.clone(), st);
        lock(&self.rooms).insert(row.id.clone(), room.clone());
        Ok(room)
    }

    /// The room of game `id` on a single node, from memory or the store.
    pub(super) async fn room_single(self: &Arc<Self>, id: &str) -> Result<Arc<Room>, OnlineError> {
        if let Some(r) = lock(&self.rooms).get(id) {
            return Ok(r.clone());
        }
        let (row, moves) = self
            .store
            .load_live(id)
            .await?
            .ok_or(OnlineError::NotFound)?;
        let seats = self.store.live_seats(id).await?;
        // Another request may have loaded it meanwhile: keep the first.
        if let Some(r) = lock(&self.rooms).get(id) {
            return Ok(r.clone());
        }
        let last = *lock(&self.last_run);
        let room = self.room_of(&row, &moves, seats, charge(last, &row))?;
        let counts = *lock(&room.chan.local);
        if counts != [0; 3] {
            let mut st = room.state.lock().await;
            let node = self.node.clone();
            self.presence(&room, &mut st, node, 0, counts);
        }
        Ok(room)
    }

    /// The room of `id` if this node owns it now.
    pub(super) fn owned(&self, id: &str) -> Option<Arc<Room>> {
        let r = lock(&self.rooms).get(id).cloned()?;
        (r.valid_until.load(Ordering::Relaxed) > self.now()).then_some(r)
    }

    pub(super) async fn route(self: &Arc<Self>, id: &str) -> Result<Route, OnlineError> {
        if !token::is_game_id(id) {
            return Err(OnlineError::NotFound);
        }
        let Some(c) = &self.cluster else {
            return Ok(Route::Local(self.room_single(id).await?));
        };
        if let Some(r) = self.owned(id) {
            return Ok(Route::Local(r));
        }
        let mut conn = c.conn();
        let owner: Option<String> = conn.get(lease_key(id)).await.map_err(unavailable)?;
        match owner {
            Some(o) if o != self.node => Ok(Route::Remote(o)),
            _ => match self.take(id).await? {
                Ok(room) => Ok(Route::Local(room)),
                Err(owner) => Ok(Route::Remote(owner)),
            },
        }
    }

    /// Takes game `id` over (its lease is free, or already this node's): loads it from the
    /// store and becomes its owner. `Err(owner)` when another node holds it.
    pub(super) async fn take(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<Result<Arc<Room>, String>, OnlineError> {
        let Some(c) = self.cluster.clone() else {
            return Ok(Ok(self.room_single(id).await?));
        };
        let one = lock(&self.taking).entry(id.to_owned()).or_default().clone();
        let _one = one.lock().await;
        if let Some(r) = self.owned(id) {
            return Ok(Ok(r));
        }
        let mut conn = c.conn();
        // The previous owner, and its last heartbeat: until then the clock ran.
        let prev: Option<String> = conn.get(owner_key(id)).await.map_err(unavailable)?;
        let (beat, alive): (Option<i64>, bool) = match &prev {
            Some(p) => {
                let (b, a): (Option<i64>, bool) = redis::pipe()
                    .hget(BEATS, p)
                    .exists(beat_key(p))
                    .query_async(&mut conn)
                    .await
                    .map_err(unavailable)?;
                (b, a)
            }
            None => (None, false),
        };
        // Nobody ever owned it: is there such a game at all (before any lease is made)?
        if prev.is_none() && self.store.load_live(id).await?.is_none() {
            return Err(OnlineError::NotFound);
        }
        let set: Option<String> = redis::cmd("SET")
            .arg(lease_key(id))
            .arg(&self.node)
            .arg("NX")
            .arg("PX")
            .arg(LEASE_TTL)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        if set.is_none() {
            let owner: Option<String> = conn.get(lease_key(id)).await.map_err(unavailable)?;
            match owner {
                Some(o) if o == self.node => {}
                Some(o) => return Ok(Err(o)),
                // Expired in between: try again from the start.
                None => return Ok(Err(self.node.clone())),
            }
        }
        // A lease missing while its owner may still act on it (Redis lost its keys, or the
        // owner is alive): wait until that owner has surely stopped taking its lease as
        // valid; it writes nothing after that, so the store is then up to date.
        let mine = prev.as_deref() == Some(self.node.as_str());
        if !mine && (prev.is_none() || alive) {
            tokio::time::sleep(Duration::from_millis(LEASE_VALID + 50)).await;
        }
        let t0 = self.now();
        let codes = c.renew(&[id.to_owned()]).await.map_err(unavailable)?;
        if codes.first().copied().unwrap_or(0) == 0 {
            let owner: Option<String> = conn.get(lease_key(id)).await.map_err(unavailable)?;
            return Ok(Err(owner.unwrap_or_else(|| self.node.clone())));
        }
        let Some((row, moves)) = self.store.load_live(id).await? else {
            let _: redis::RedisResult<()> = conn.del(lease_key(id)).await;
            let _: redis::RedisResult<()> = conn.srem(GAMES, id).await;
            return Err(OnlineError::NotFound);
        };
        // A room kept from before (the lease lapsed while Redis was away): keep its clock if
        // the store has nothing newer.
        let kept = lock(&self.rooms).get(id).cloned();
        if let Some(room) = kept {
            let mut st = room.state.lock().await;
            if st.live.game.len() == moves.len()
                && st.live.status().as_str() == row.status
                && st.rematch.as_deref().unwrap_or("") == row.rematch
            {
                room.valid_until.store(t0 + LEASE_VALID, Ordering::Relaxed);
                let _: redis::RedisResult<()> =
                    conn.set_ex(owner_key(id), &self.node, OWNER_TTL).await;
                self.schedule(&room, &mut st, 0);
                drop(st);
                c.publish(
                    EVENTS.into(),
                    &Wire::Owner {
                        from: self.node.clone(),
                        game: id.to_owned(),
                    },
                );
                return Ok(Ok(room));
            }
            if let Some(t) = st.timer.take() {
                t.abort();
            }
        }
        let charge = charge(beat, &row);
        let seats = self.store.live_seats(id).await?;
        let room = self.room_of(&row, &moves, seats, charge)?;
        room.valid_until.store(t0 + LEASE_VALID, Ordering::Relaxed);
        let _: redis::RedisResult<()> = conn.set_ex(owner_key(id), &self.node, OWNER_TTL).await;
        if room.over.load(Ordering::Relaxed) {
            let _: redis::RedisResult<()> = conn.srem(GAMES, id).await;
            room.released.store(true, Ordering::Relaxed);
        } else {
            let _: redis::RedisResult<()> = conn.sadd(GAMES, id).await;
        }
        {
            let mut st = room.state.lock().await;
            let counts = *lock(&room.chan.local);
            let v = room.chan.version.load(Ordering::Relaxed);
            self.presence(&room, &mut st, self.node.clone(), v, counts);
            self.schedule(&room, &mut st, 0);
            if room.chan.tx.receiver_count() > 0 || prev.is_some() {
                let full = self.full_event(&room, &st);
                Self::send(&room, None, &full);
            }
        }
        c.publish(
            EVENTS.into(),
            &Wire::Owner {
                from: self.node.clone(),
                game: id.to_owned(),
            },
        );
        if prev.is_some() && prev.as_deref() != Some(&self.node) {
            eprintln!(
                "xiangqi serve: live game {id}: taken over from node {} (charged {charge} ms)",
                prev.as_deref().unwrap_or("?")
            );
        }
        Ok(Ok(room))
    }

    /// Renews this node's leases; drops the games another node holds now.
    pub(super) async fn renew_tick(self: &Arc<Self>) {
        let Some(c) = self.cluster.clone() else {
            return;
        };
        let rooms: Vec<Arc<Room>> = lock(&self.rooms).values().cloned().collect();
        let (open, done): (Vec<_>, Vec<_>) = rooms
            .into_iter()
            .partition(|r| !r.over.load(Ordering::Relaxed));
        let ids: Vec<String> = open.iter().map(|r| r.id.clone()).collect();
        let t0 = self.now();
        match c.renew(&ids).await {
            Ok(codes) => {
                for (room, code) in open.into_iter().zip(codes) {
                    match code {
                        1 => room.valid_until.store(t0 + LEASE_VALID, Ordering::Relaxed),
                        2 => {
                            // Found without a lease: ours again, but check the store first.
                            room.valid_until.store(0, Ordering::Relaxed);
                            let h = self.clone();
                            tokio::spawn(async move {
                                if let Err(e) = h.take(&room.id).await {
                                    eprintln!("xiangqi serve: live game {}: {e}", room.id);
                                }
                            });
                        }
                        _ => {
                            room.valid_until.store(0, Ordering::Relaxed);
                            lock(&self.rooms).remove(&room.id);
                            let mut st = room.state.lock().await;
                            if let Some(t) = st.timer.take() {
                                t.abort();
                            }
                        }
                    }
                }
            }
            Err(e) => self.log_redis("cannot renew the leases", &e),
        }
        let ended: Vec<String> = done
            .iter()
            .filter(|r| !r.released.load(Ordering::Relaxed))
            .map(|r| r.id.clone())
            .collect();
        if !ended.is_empty() {
            let mut conn = c.conn();
            let r: redis::RedisResult<()> = conn.srem(GAMES, &ended).await;
            if r.is_ok() {
                for room in &done {
                    room.released.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Takes over the games without an owner; forgets the streams and seeks of dead nodes.
    pub(super) async fn sweep(self: &Arc<Self>) {
        let Some(c) = self.cluster.clone() else {
            return;
        };
        let mut conn = c.conn();
        let mut ids: Vec<String> = match conn.smembers(GAMES).await {
            Ok(v) => v,
            Err(e) => return self.log_redis("cannot read the live games", &e),
        };
        // Games this node has streams of, in case Redis lost the set.
        for id in lock(&self.channels).keys() {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids.retain(|id| self.owned(id).is_none());
        for chunk in ids.chunks(500) {
            let keys: Vec<String> = chunk.iter().map(|i| lease_key(i)).collect();
            let leases: Vec<Option<String>> = match conn.mget(&keys).await {
                Ok(v) => v,
                Err(e) => return self.log_redis("cannot read the leases", &e),
            };
            for (id, lease) in chunk.iter().zip(leases) {
                if lease.is_none() {
                    let h = self.clone();
                    let id = id.clone();
                    tokio::spawn(async move {
                        match h.take(&id).await {
                            Ok(_) | Err(OnlineError::NotFound) => {}
                            Err(e) => eprintln!("xiangqi serve: live game {id}: {e}"),
                        }
                    });
                }
            }
        }
        // The nodes other nodes' counts and seeks come from: are they alive?
        let rooms: Vec<Arc<Room>> = lock(&self.rooms).values().cloned().collect();
        let mut nodes: Vec<String> = Vec::new();
        let mut per_room = Vec::new();
        for room in rooms {
            if let Ok(st) = room.state.try_lock() {
                let others: Vec<String> = st
                    .presence
                    .iter()
                    .filter(|(n, (_, c))| **n != self.node && *c != [0; 3])
                    .map(|(n, _)| n.clone())
                    .collect();
                for n in &others {
                    if !nodes.contains(n) {
                        nodes.push(n.clone());
                    }
                }
                if !others.is_empty() {
                    per_room.push((room.clone(), others));
                }
            }
        }
        let seeks: HashMap<String, String> = conn.hgetall(SEEKS).await.unwrap_or_default();
        let mut seek_nodes = Vec::new();
        for (id, v) in &seeks {
            if let Ok(s) = serde_json::from_str::<SharedSeek>(v) {
                if !nodes.contains(&s.node) {
                    nodes.push(s.node.clone());
                }
                seek_nodes.push((id.clone(), s.node));
            }
        }
        if nodes.is_empty() {
            return;
        }
        let keys: Vec<String> = nodes.iter().map(|n| beat_key(n)).collect();
        let Ok(beats) = conn.mget::<_, Vec<Option<String>>>(&keys).await else {
            return;
        };
        // Dead: without a heartbeat at two sweeps in a row (after a restart of Redis every
        // node's heartbeat is missing until its next renewal).
        let missing: Vec<String> = nodes
            .iter()
            .zip(beats)
            .filter(|(_, b)| b.is_none())
            .map(|(n, _)| n.clone())
            .collect();
        let dead: Vec<String> = {
            let mut suspects = lock(&self.suspects);
            let dead = missing
                .iter()
                .filter(|n| suspects.contains(n))
                .cloned()
                .collect();
            *suspects = missing;
            dead
        };
        if dead.is_empty() {
            return;
        }
        for (room, others) in per_room {
            let mut st = room.state.lock().await;
            for n in others.iter().filter(|n| dead.contains(n)) {
                self.forget_node(&room, &mut st, n);
            }
        }
        let gone: Vec<String> = seek_nodes
            .into_iter()
            .filter(|(_, n)| dead.contains(n))
            .map(|(id, _)| id)
            .collect();
        if !gone.is_empty() {
            let _: redis::RedisResult<()> = conn.hdel(SEEKS, &gone).await;
            c.publish(EVENTS.into(), &Wire::Lobby);
            self.refresh_lobby().await;
        }
    }
}
