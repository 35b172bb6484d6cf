-- An account's language for the app (POST /api/account/preferences, `lang`): en, zh-Hans,
-- zh-Hant or vi; NULL until one is chosen (then the browser's Accept-Language decides).
ALTER TABLE user_prefs ADD COLUMN lang TEXT;
