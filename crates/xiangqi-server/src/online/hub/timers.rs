//! Each room's timer: flag falls and first-move limits, stored when they end a game.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::codec::change_of;
use super::{lock, Hub, Room, RoomState, STORE_RETRY_MS};
use crate::store::live::LiveWrite;

impl Hub {
    /// Sets the room's timer for its next deadline (flag fall, first-move limit), at least
    /// `min_wait` ms away.
    pub(super) fn schedule(self: &Arc<Self>, room: &Arc<Room>, st: &mut RoomState, min_wait: u64) {
        if let Some(t) = st.timer.take() {
            t.abort();
        }
        let Some(wait) = st.live.next_deadline(self.now()) else {
            return;
        };
        let wait = wait.max(min_wait);
        let hub = Arc::downgrade(self);
        let room = Arc::downgrade(room);
        let task = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(wait + 1)).await;
            if let (Some(hub), Some(room)) = (hub.upgrade(), room.upgrade()) {
                hub.on_timer(&room).await;
            }
        });
        st.timer = Some(task.abort_handle());
    }

    pub(super) async fn on_timer(self: &Arc<Self>, room: &Arc<Room>) {
        let mut st = room.state.lock().await;
        // This task is the room's timer: don't let `schedule` abort it from under us.
        st.timer = None;
        let now = self.now();
        if room.valid_until.load(Ordering::Relaxed) <= now {
            // Not sure of the lease (Redis away): look again soon; a new owner has its own.
            if lock(&self.rooms)
                .get(&room.id)
                .is_some_and(|r| Arc::ptr_eq(r, room))
            {
                self.schedule(room, &mut st, 250);
            }
            return;
        }
        let mut next = st.live.clone();
        if next.tick(now) {
            let w = LiveWrite::Update {
                id: room.id.clone(),
                change: change_of(&next, now),
            };
            let rate = Self::rating_write(&room.id, &st, &next);
            match self.commit(room, &mut st, rate, w, &next).await {
                Ok(_) => {
                    st.live = next;
                    room.over.store(st.live.is_over(), Ordering::Relaxed);
                    Self::send(room, None, &Self::state_event(&st.live, now));
                }
                Err(e) => {
                    eprintln!(
                        "xiangqi serve: live game {}: cannot store its end (trying again in \
                         {STORE_RETRY_MS} ms): {e}",
                        room.id
                    );
                    // The deadline has passed: without a pause the timer would fire again at
                    // once, as long as the database is away.
                    self.schedule(room, &mut st, STORE_RETRY_MS);
                    return;
                }
            }
        }
        self.schedule(room, &mut st, 0);
    }
}
