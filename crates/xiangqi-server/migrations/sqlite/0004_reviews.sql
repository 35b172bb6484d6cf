-- A game's engine review (at most one, the latest): the main line it reviewed (moves in
-- coordinates separated by spaces, so a later change of the game shows), the search depth, when
-- it was made (Unix seconds) and the result as JSON (docs/API.md, `Review`). IF NOT EXISTS: a
-- file made by the server between game review and versioned migrations may have it already.
CREATE TABLE IF NOT EXISTS reviews (
    game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    moves TEXT NOT NULL,
    depth INTEGER NOT NULL,
    created INTEGER NOT NULL,
    data TEXT NOT NULL
);
