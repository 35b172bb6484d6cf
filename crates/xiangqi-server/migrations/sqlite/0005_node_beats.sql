-- When each server node was last known to be alive (its heartbeat, ms since the Unix epoch,
-- written about every half second). A single node restarted after a crash charges the side
-- to move of each live game for the time it thought up to its node's last beat, and no more:
-- the time the server was down is nobody's (docs/API.md, "Clocks").
CREATE TABLE IF NOT EXISTS node_beats (
    node TEXT PRIMARY KEY,
    at INTEGER NOT NULL
);
