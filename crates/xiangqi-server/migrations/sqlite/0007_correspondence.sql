-- Correspondence games (days per move instead of a clock): the days, NULL for any other
-- game; and the side to move's deadline, wall-clock ms since the Unix epoch, NULL when the
-- game has none (no days, or over). A restart keeps it (docs/API.md, "Correspondence").
ALTER TABLE live_games ADD COLUMN days INTEGER;
ALTER TABLE live_games ADD COLUMN deadline INTEGER;
