-- Bot accounts and the preference to take bots' challenges, as SQLite migration 8.
ALTER TABLE users ADD COLUMN bot BIGINT NOT NULL DEFAULT 0;
ALTER TABLE user_prefs ADD COLUMN bot_challenges BIGINT NOT NULL DEFAULT 1;
