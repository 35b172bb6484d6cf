-- The games, their moves and alternative lines, and the live games between people.
-- Every statement is IF NOT EXISTS: a file from before versioned migrations (which made these
-- tables itself, perhaps without `lines` or the live tables) gets what it lacks and is then
-- at version 1.
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    mode TEXT NOT NULL,
    human TEXT NOT NULL DEFAULT '',
    level INTEGER NOT NULL DEFAULT 0,
    start_fen TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '{}',
    declared TEXT NOT NULL DEFAULT '',
    declared_ply INTEGER NOT NULL DEFAULT 0,
    result TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    plies INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
-- Alternative lines of a game (analysis variations): each a whole line from the start
-- position, moves in coordinates separated by spaces.
CREATE TABLE IF NOT EXISTS lines (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    moves TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_games (
    id TEXT PRIMARY KEY,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    start_fen TEXT NOT NULL,
    -- The time control in ms; NULL for a game without a clock.
    clock_initial INTEGER,
    clock_increment INTEGER,
    red_name TEXT NOT NULL,
    black_name TEXT NOT NULL,
    -- SHA-256 of the seat tokens (the tokens themselves are never stored).
    red_key TEXT NOT NULL,
    black_key TEXT NOT NULL,
    -- The clocks after the last change: red ms, black ms, red quota, black quota.
    clock TEXT NOT NULL DEFAULT '',
    -- An end the rules game cannot re-derive from the moves: '' while it goes on or when
    -- the moves end it; else resign-red, resign-black, draw, flag-red, flag-black, aborted,
    -- claim-red, claim-black, claim-draw.
    declared TEXT NOT NULL DEFAULT '',
    -- Derived, for lists: the board API's status and the winner ('' for none).
    status TEXT NOT NULL DEFAULT 'created',
    winner TEXT NOT NULL DEFAULT '',
    -- The rematch's id, once both asked for it.
    rematch TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS live_moves (
    game_id TEXT NOT NULL REFERENCES live_games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS live_games_status ON live_games(status);
