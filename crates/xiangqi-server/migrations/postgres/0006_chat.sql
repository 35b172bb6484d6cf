-- Game chat, blocks and preferences, as the SQLite store's migration 6 (integers BIGINT).
CREATE TABLE chat_lines (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    room TEXT NOT NULL,
    author TEXT NOT NULL,
    user_id BIGINT,
    seat TEXT NOT NULL,
    text TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE blocks (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    blocked_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created BIGINT NOT NULL,
    PRIMARY KEY (user_id, blocked_id)
);
CREATE TABLE user_prefs (
    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    chat BIGINT NOT NULL
);
