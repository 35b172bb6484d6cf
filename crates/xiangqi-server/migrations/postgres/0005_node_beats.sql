-- When each server node was last known to be alive (its heartbeat, ms since the Unix epoch),
-- as SQLite migration 5: a restarted node charges a live game's side to move up to it.
CREATE TABLE node_beats (
    node TEXT PRIMARY KEY,
    at BIGINT NOT NULL
);
