-- Bot accounts (docs/API.md, "Bots"): an account upgraded with POST /api/bot/account/upgrade
-- (only one that has played no game) is a bot for good, shown with the title BOT; and a
-- person's preference to take challenges from bots (1, the default) or not (0).
ALTER TABLE users ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
ALTER TABLE user_prefs ADD COLUMN bot_challenges INTEGER NOT NULL DEFAULT 1;
