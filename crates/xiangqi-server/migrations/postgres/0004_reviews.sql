-- A game's engine review (at most one, the latest), as SQLite migration 4: the main line it
-- reviewed, the search depth, when it was made (Unix seconds) and the result as JSON.
CREATE TABLE reviews (
    game_id BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    moves TEXT NOT NULL,
    depth BIGINT NOT NULL,
    created BIGINT NOT NULL,
    data TEXT NOT NULL
);
