-- What a record says at a move: a comment and NAGs (numbers separated by spaces). `path`
-- names the move: the moves from the start position to it in coordinates separated by
-- spaces ('' for the start: a comment before the first move). IF NOT EXISTS: a file made by
-- the server between records shown whole and versioned migrations may have it already.
CREATE TABLE IF NOT EXISTS notes (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    comment TEXT NOT NULL DEFAULT '',
    nags TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, path)
) WITHOUT ROWID;
