-- An account's language for the app, as SQLite migration 9.
ALTER TABLE user_prefs ADD COLUMN lang TEXT;
