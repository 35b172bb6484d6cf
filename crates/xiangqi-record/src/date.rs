//! Civil dates (UTC) for records' date fields, from times since 1970 (no time-zone data).

/// The civil date `(year, month, day)` of a day counted from 1970-01-01 (negative before it),
/// in the proleptic Gregorian calendar (Howard Hinnant's days-to-civil).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m as u32, d as u32)
}

/// The civil date of a time in milliseconds since 1970 as `yyyymmdd` (0 before year 0).
pub fn yyyymmdd_of_ms(ms: i64) -> u32 {
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    (y * 10_000 + i64::from(m) * 100 + i64::from(d)).clamp(0, i64::from(u32::MAX)) as u32
}

/// Today's date as PGN writes it: `YYYY.MM.DD` (UTC).
pub fn pgn_today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        // 2000-02-29 (a leap day of a century leap year) and the day after.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        // 2100 is not a leap year: 2100-02-28 is followed by 2100-03-01.
        assert_eq!(civil_from_days(47_540), (2100, 2, 28));
        assert_eq!(civil_from_days(47_541), (2100, 3, 1));
        assert_eq!(yyyymmdd_of_ms(1_764_806_400_000), 20_251_204);
        assert_eq!(yyyymmdd_of_ms(0), 19_700_101);
        assert_eq!(yyyymmdd_of_ms(951_782_400_000), 20_000_229);
        assert_eq!(yyyymmdd_of_ms(1_796_342_400_000 - 1), 20_261_203);
        assert_eq!(yyyymmdd_of_ms(1_796_342_400_000), 20_261_204);
        // Before year 0 the number would be negative: 0.
        assert_eq!(yyyymmdd_of_ms(-86_400_000 * 719_562), 0);
    }
}
