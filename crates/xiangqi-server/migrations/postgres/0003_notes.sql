-- What a record says at a move: a comment and NAGs (numbers separated by spaces), by the
-- path of moves from the start position to it ('' for the start), as SQLite migration 3.
CREATE TABLE notes (
    game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    comment TEXT NOT NULL DEFAULT '',
    nags TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, path)
);
