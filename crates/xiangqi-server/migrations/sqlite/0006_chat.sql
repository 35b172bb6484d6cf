-- Game chat (docs/API.md, "Chat"): every line of a live game's two rooms ("player": the two
-- seats; "spectator": logged-in spectators), numbered per game in the order its owner node
-- took them; which accounts an account blocks (their lines are not shown to it, their
-- challenges refused); an account's preferences (chat on or off).
CREATE TABLE IF NOT EXISTS chat_lines (
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    room TEXT NOT NULL,
    -- The name shown: the seat's player name, or the spectator's account name.
    author TEXT NOT NULL,
    -- The author's account, NULL for a guest's seat.
    user_id INTEGER,
    -- 'red' or 'black' for a seat's line, '' for a spectator's.
    seat TEXT NOT NULL,
    text TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS blocks (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    blocked_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created BIGINT NOT NULL,
    PRIMARY KEY (user_id, blocked_id)
);
CREATE TABLE IF NOT EXISTS user_prefs (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    -- 1: the chat panels are shown; 0: chat is off for this account.
    chat INTEGER NOT NULL
);
