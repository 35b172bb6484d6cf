-- Correspondence games, as SQLite migration 6: days per move (NULL: not correspondence) and
-- the side to move's deadline (wall-clock ms since the Unix epoch, NULL: none).
ALTER TABLE live_games ADD COLUMN days INTEGER;
ALTER TABLE live_games ADD COLUMN deadline BIGINT;
