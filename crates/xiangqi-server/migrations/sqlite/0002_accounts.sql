-- Accounts: users (argon2id password hashes), sessions and personal API tokens (SHA-256
-- hashes only), ratings per speed with their history, and the accounts of a live game's seats.
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    -- The name in lower case: names are unique regardless of case.
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    -- SHA-256 (hex) of the session cookie's secret.
    key TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created BIGINT NOT NULL,
    expires BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id);
CREATE TABLE IF NOT EXISTS api_tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- SHA-256 (hex) of the token.
    key TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON api_tokens(user_id);
CREATE TABLE IF NOT EXISTS ratings (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    speed TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    rd DOUBLE PRECISION NOT NULL,
    vol DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    updated BIGINT NOT NULL,
    PRIMARY KEY (user_id, speed)
);
CREATE INDEX IF NOT EXISTS ratings_speed ON ratings(speed, rating);
CREATE TABLE IF NOT EXISTS rating_history (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game_id TEXT NOT NULL,
    speed TEXT NOT NULL,
    at BIGINT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    rd DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, game_id)
);
CREATE TABLE IF NOT EXISTS live_seats (
    game_id TEXT PRIMARY KEY REFERENCES live_games(id) ON DELETE CASCADE,
    red_user INTEGER REFERENCES users(id),
    black_user INTEGER REFERENCES users(id),
    rated INTEGER NOT NULL DEFAULT 0,
    speed TEXT NOT NULL,
    -- The ratings before the game (rated games).
    red_rating DOUBLE PRECISION,
    red_rd DOUBLE PRECISION,
    black_rating DOUBLE PRECISION,
    black_rd DOUBLE PRECISION,
    -- What the game changed, once rated.
    red_diff DOUBLE PRECISION,
    black_diff DOUBLE PRECISION,
    -- When the ratings were updated (NULL until then: a game is rated once).
    rated_at BIGINT
);
CREATE INDEX IF NOT EXISTS live_seats_red ON live_seats(red_user);
CREATE INDEX IF NOT EXISTS live_seats_black ON live_seats(black_user);
