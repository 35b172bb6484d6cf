//! Every SQL statement of the store's writes, once, for both backends (docs/DATABASE.md,
//! "One meaning on both databases").
//!
//! A statement is written once, in PostgreSQL's placeholder style (`$1`, `$2`, ...); its
//! SQLite text is made from it at compile time by turning each `$N` into `?N` (SQLite's
//! numbered parameter, the same number, any order), nothing else. Both backends bind the
//! same values in the same order. Where the dialects genuinely differ the statement has two
//! texts, side by side here (`two!`), each with the reason. `ALL` lists every statement, and
//! `tests/store.rs` prepares each one on both databases
//! (`the_write_statements_prepare_alike`) and checks that both texts take
//! the same number of parameters.
//!
//! The SQL both dialects share, as used here: `INSERT ... ON CONFLICT (...) DO UPDATE SET
//! col = excluded.col [WHERE ...]` (SQLite 3.24), `INSERT ... RETURNING id` (SQLite 3.35; the
//! bundled SQLite is newer), `CASE`, `COALESCE`. Times are integers (ms) the server computes,
//! never the database's `now()`; booleans are integers 0 and 1, the same on both.

/// One statement: its SQLite text and its PostgreSQL text (the same statement, one meaning).
#[derive(Clone, Copy, Debug)]
pub struct Sql {
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

/// `text` with every `$N` (a `$` before a digit) made `?N`, as a byte array of its length
/// (the texts have no `$` of their own: no string literal holds one).
const fn sqlite_params<const N: usize>(text: &str) -> [u8; N] {
    let b = text.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = if b[i] == b'$' && i + 1 < N && b[i + 1].is_ascii_digit() {
            b'?'
        } else {
            b[i]
        };
        i += 1;
    }
    out
}

/// A statement with one text for both dialects (written with `$N`).
macro_rules! one {
    ($pg:literal) => {{
        const PG: &str = $pg;
        const BYTES: [u8; PG.len()] = sqlite_params::<{ PG.len() }>(PG);
        const B: &[u8] = &BYTES;
        Sql {
            sqlite: match std::str::from_utf8(B) {
                Ok(s) => s,
                Err(_) => panic!("a statement that is not UTF-8"),
            },
            postgres: PG,
        }
    }};
}

/// A statement whose dialects differ: both texts, each with its own placeholders.
macro_rules! two {
    (sqlite: $lite:literal, postgres: $pg:literal $(,)?) => {
        Sql {
            sqlite: $lite,
            postgres: $pg,
        }
    };
}

/// The table: each statement as a `const`, and `ALL` listing every one (so none is missed by
/// the test that prepares them on both databases).
macro_rules! statements {
    ($($(#[$doc:meta])* $name:ident = $sql:expr;)*) => {
        $($(#[$doc])* pub const $name: Sql = $sql;)*
        /// Every statement, by name.
        pub const ALL: &[(&str, Sql)] = &[$((stringify!($name), $name)),*];
    };
}

statements! {
    // Games: the row, its moves, alternative lines, notes and review.

    /// A new game row (`plies` the number of its moves); answers its id.
    GAME_INSERT = one!(
        "INSERT INTO games (created, updated, mode, human, level, start_fen, tags, declared, \
         declared_ply, result, reason, plies) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id"
    );
    /// Game $1 was changed at $2 (a note set); no row: no such game.
    GAME_TOUCH = one!("UPDATE games SET updated = $2 WHERE id = $1");
    /// Game $1 got a move: its time $2, number of moves $3 and derived result $4, reason $5.
    GAME_MOVED = one!(
        "UPDATE games SET updated = $2, plies = $3, result = $4, reason = $5 WHERE id = $1"
    );
    /// Game $1 was cut back to $2 moves: a declared end made after them goes, and its time
    /// $3 and derived result $4, reason $5 are set.
    GAME_TRUNCATED = one!(
        "UPDATE games SET declared = CASE WHEN declared_ply > $2 THEN '' ELSE declared END, \
         updated = $3, plies = $2, result = $4, reason = $5 WHERE id = $1"
    );
    /// Game $1's declared end $2 (at $3 moves), its time $4 and derived result $5, reason $6.
    GAME_DECLARE = one!(
        "UPDATE games SET declared = $2, declared_ply = $3, updated = $4, result = $5, \
         reason = $6 WHERE id = $1"
    );
    /// Game $1's new main line: time $2, number of moves $3, result $4, reason $5, declared
    /// end $6 at $7 moves; no row: no such game.
    GAME_SET_LINES = one!(
        "UPDATE games SET updated = $2, plies = $3, result = $4, reason = $5, declared = $6, \
         declared_ply = $7 WHERE id = $1"
    );
    /// Removes game $1's row (on PostgreSQL its moves, lines, notes and review go with it:
    /// ON DELETE CASCADE; SQLite deletes them first, as files older than the migrations may
    /// lack the cascade).
    GAME_DELETE = one!("DELETE FROM games WHERE id = $1");
    /// Move $3 at ply $2 of game $1 (a new game's moves, or a whole new main line).
    MOVE_INSERT = one!("INSERT INTO moves (game_id, ply, uci) VALUES ($1, $2, $3)");
    /// Move $3 at ply $2 of game $1, unless the ply has another move (then no row changes,
    /// and the write is refused); the same move again changes nothing.
    MOVE_PUT = one!(
        "INSERT INTO moves (game_id, ply, uci) VALUES ($1, $2, $3) \
         ON CONFLICT (game_id, ply) DO UPDATE SET uci = excluded.uci \
         WHERE moves.uci = excluded.uci"
    );
    /// Removes every move of game $1.
    MOVES_DELETE = one!("DELETE FROM moves WHERE game_id = $1");
    /// Removes game $1's moves from ply $2 on.
    MOVES_DELETE_FROM = one!("DELETE FROM moves WHERE game_id = $1 AND ply >= $2");
    /// Alternative line $2 (its moves $3) of game $1.
    LINE_INSERT = one!("INSERT INTO lines (game_id, seq, moves) VALUES ($1, $2, $3)");
    /// Removes every alternative line of game $1.
    LINES_DELETE = one!("DELETE FROM lines WHERE game_id = $1");
    /// The note at path $2 of game $1 (comment $3, NAGs $4), replacing one there.
    NOTE_PUT = one!(
        "INSERT INTO notes (game_id, path, comment, nags) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (game_id, path) DO UPDATE SET comment = excluded.comment, \
         nags = excluded.nags"
    );
    /// Removes the note at path $2 of game $1.
    NOTE_DELETE = one!("DELETE FROM notes WHERE game_id = $1 AND path = $2");
    /// Removes every note of game $1 (SQLite's delete of a game).
    NOTES_DELETE = one!("DELETE FROM notes WHERE game_id = $1");
    /// Game $1's review (of moves $2 at depth $3, made at $4, the JSON $5), replacing one.
    REVIEW_PUT = one!(
        "INSERT INTO reviews (game_id, moves, depth, created, data) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (game_id) DO UPDATE SET moves = excluded.moves, depth = excluded.depth, \
         created = excluded.created, data = excluded.data"
    );
    /// Removes game $1's review (SQLite's delete of a game).
    REVIEW_DELETE = one!("DELETE FROM reviews WHERE game_id = $1");
    /// Node $1 is alive at $2.
    BEAT_PUT = one!(
        "INSERT INTO node_beats (node, at) VALUES ($1, $2) \
         ON CONFLICT (node) DO UPDATE SET at = excluded.at"
    );

    // Live games between people.

    /// A new live game's row.
    LIVE_INSERT = one!(
        "INSERT INTO live_games (id, created, updated, start_fen, clock_initial, \
         clock_increment, red_name, black_name, red_key, black_key, clock, declared, status, \
         winner, rematch, days, deadline) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)"
    );
    /// Live game $1 after a change: time $2, clocks $3, declared end $4, status $5, winner
    /// $6, correspondence deadline $7; no row: no such game.
    LIVE_UPDATE = one!(
        "UPDATE live_games SET updated = $2, clock = $3, declared = $4, status = $5, \
         winner = $6, deadline = $7 WHERE id = $1"
    );
    /// Live game $1's rematch is game $2.
    LIVE_REMATCH = one!("UPDATE live_games SET rematch = $2 WHERE id = $1");
    /// Move $3 at ply $2 of live game $1 (a new live game's moves).
    LIVE_MOVE_INSERT = one!("INSERT INTO live_moves (game_id, ply, uci) VALUES ($1, $2, $3)");
    /// Move $3 at ply $2 of live game $1, as `MOVE_PUT`: the same move again changes
    /// nothing, another move there changes no row (refused).
    LIVE_MOVE_PUT = one!(
        "INSERT INTO live_moves (game_id, ply, uci) VALUES ($1, $2, $3) \
         ON CONFLICT (game_id, ply) DO UPDATE SET uci = excluded.uci \
         WHERE live_moves.uci = excluded.uci"
    );
    /// Removes live game $1's moves from ply $2 on (a takeback).
    LIVE_MOVES_DELETE_FROM = one!("DELETE FROM live_moves WHERE game_id = $1 AND ply >= $2");

    // Chat (store/chat.rs).

    /// Line $2 of live game $1's chat: room $3, author $4, account $5 (NULL: a guest's
    /// seat), seat $6, text $7, at $8.
    CHAT_INSERT = one!(
        "INSERT INTO chat_lines (game_id, seq, room, author, user_id, seat, text, at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    );
    /// Account $1 blocks account $2 (at $3); already blocked: no row changes.
    BLOCK_PUT = one!(
        "INSERT INTO blocks (user_id, blocked_id, created) VALUES ($1, $2, $3) \
         ON CONFLICT (user_id, blocked_id) DO NOTHING"
    );
    /// Account $1 no longer blocks account $2.
    BLOCK_DELETE = one!("DELETE FROM blocks WHERE user_id = $1 AND blocked_id = $2");
    /// Account $1's chat preference $2 (1 on, 0 off).
    PREF_CHAT_PUT = one!(
        "INSERT INTO user_prefs (user_id, chat) VALUES ($1, $2) \
         ON CONFLICT (user_id) DO UPDATE SET chat = excluded.chat"
    );

    // Accounts.

    /// A new account (name $1, its lower-case key $2, password hash $3, made at $4);
    /// answers its id; a key already there is a unique violation (`StoreError::Taken`).
    USER_INSERT = one!(
        "INSERT INTO users (name, name_key, password_hash, created) VALUES ($1, $2, $3, $4) \
         RETURNING id"
    );
    /// Account $1 becomes a bot when it holds no seat of any live game (it has played none).
    USER_UPGRADE_BOT = one!(
        "UPDATE users SET bot = 1 WHERE id = $1 AND bot = 0 AND NOT EXISTS \
         (SELECT 1 FROM live_seats WHERE red_user = $1 OR black_user = $1)"
    );
    /// Account $1's preference $2 (1 yes, 0 no): take challenges from bots.
    PREF_BOT_CHALLENGES_PUT = one!(
        "INSERT INTO user_prefs (user_id, chat, bot_challenges) VALUES ($1, 1, $2) \
         ON CONFLICT (user_id) DO UPDATE SET bot_challenges = excluded.bot_challenges"
    );
    /// Account $1's language $2 (`en`, `zh-Hans`, `zh-Hant`, `vi`).
    PREF_LANG_PUT = one!(
        "INSERT INTO user_prefs (user_id, chat, lang) VALUES ($1, 1, $2) \
         ON CONFLICT (user_id) DO UPDATE SET lang = excluded.lang"
    );
    /// Account $1's new password hash $2.
    USER_SET_PASSWORD = one!("UPDATE users SET password_hash = $2 WHERE id = $1");
    /// Ends every session of account $1.
    SESSIONS_DELETE_USER = one!("DELETE FROM sessions WHERE user_id = $1");
    /// A session: key $1 (a hash) of account $2, CSRF token $3, made at $4, ending at $5.
    SESSION_INSERT = one!(
        "INSERT INTO sessions (key, user_id, csrf, created, expires) VALUES ($1, $2, $3, $4, $5)"
    );
    /// Removes the sessions that ended before $1.
    SESSIONS_DELETE_EXPIRED = one!("DELETE FROM sessions WHERE expires < $1");
    /// Ends the session of key $1.
    SESSION_DELETE = one!("DELETE FROM sessions WHERE key = $1");
    /// A personal API token of account $1 (key $2, a hash; label $3; made at $4); answers
    /// its id.
    TOKEN_INSERT = one!(
        "INSERT INTO api_tokens (user_id, key, label, created) VALUES ($1, $2, $3, $4) \
         RETURNING id"
    );
    /// Revokes token $1 if account $2 holds it.
    TOKEN_DELETE = one!("DELETE FROM api_tokens WHERE id = $1 AND user_id = $2");
    /// The accounts of live game $1's seats ($2 Red, $3 Black, either NULL for a guest),
    /// whether it is rated $4 (0, 1), its speed $5 and the ratings before it ($6-$9).
    SEATS_INSERT = one!(
        "INSERT INTO live_seats (game_id, red_user, black_user, rated, speed, red_rating, \
         red_rd, black_rating, black_rd) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
    );
    /// Account $1's rating of speed $2 (rating, deviation, volatility, games), if it has one.
    RATING_GET = one!(
        "SELECT rating, rd, vol, games FROM ratings WHERE user_id = $1 AND speed = $2"
    );
    /// Live game $1's seats, if it is rated and not rated yet. PostgreSQL locks the row
    /// (FOR UPDATE) so that two nodes ending the same game rate it once; SQLite has one
    /// writer (its writes are serial) and no FOR UPDATE.
    SEATS_TO_RATE = two!(
        sqlite: "SELECT red_user, black_user, speed FROM live_seats \
                 WHERE game_id = ?1 AND rated = 1 AND rated_at IS NULL",
        postgres: "SELECT red_user, black_user, speed FROM live_seats \
                   WHERE game_id = $1 AND rated = 1 AND rated_at IS NULL FOR UPDATE",
    );
    /// Account $1's rating of speed $2 after a game: $3-$5, games $6, at $7.
    RATING_PUT = one!(
        "INSERT INTO ratings (user_id, speed, rating, rd, vol, games, updated) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (user_id, speed) DO UPDATE SET rating = excluded.rating, rd = excluded.rd, \
         vol = excluded.vol, games = excluded.games, updated = excluded.updated"
    );
    /// A point of account $1's rating history: after live game $2 (speed $3, at $4), rating
    /// $5 and deviation $6.
    RATING_HISTORY_INSERT = one!(
        "INSERT INTO rating_history (user_id, game_id, speed, at, rating, rd) \
         VALUES ($1, $2, $3, $4, $5, $6)"
    );
    /// Live game $1 was rated at $2, changing Red's rating by $3 and Black's by $4.
    SEATS_RATED = one!(
        "UPDATE live_seats SET rated_at = $2, red_diff = $3, black_diff = $4 WHERE game_id = $1"
    );
}
