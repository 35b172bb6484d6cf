//! Records inside a web page: the text of its `<pre>` and `<textarea>` elements, where sites
//! and blogs show PGN (and Chinese text records) for copying. Each element's text, with its
//! inner tags left out and HTML entities decoded (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;`
//! `&nbsp;` and numeric `&#NNN;` / `&#xHH;`), is read when it is a PGN or a Chinese text record
//! ([`crate::cntext`]); the others (code, poems) are passed over. A page may hold several
//! games, in one element or several.
//!
//! A DhtmlXQ record in a page is read by [`crate::dhtmlxq`] (it is detected first).

/// One `<pre>` or `<textarea>` element's decoded text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// `pre` or `textarea`.
    pub element: &'static str,
    /// 1-based line of the page where the element's text starts.
    pub line: usize,
    pub text: String,
}

/// Case-insensitive find of an ASCII needle from byte `from`.
fn find_ci(hay: &str, needle: &str, from: usize) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    if from > h.len() || n.is_empty() {
        return None;
    }
    h[from..]
        .windows(n.len())
        .position(|w| w.eq_ignore_ascii_case(n))
        .map(|p| p + from)
}

/// The `<pre>` and `<textarea>` elements of a page, in order.
pub fn blocks(page: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        // The next opening tag of either element.
        let next = ["pre", "textarea"]
            .iter()
            .filter_map(|&name| {
                let mut from = i;
                // `<pre` must be followed by `>` or a space (not `<prefix>`).
                while let Some(at) = find_ci(page, &format!("<{name}"), from) {
                    let after = page.as_bytes().get(at + 1 + name.len()).copied();
                    if matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/')) {
                        return Some((at, name));
                    }
                    from = at + 1;
                }
                None
            })
            .min();
        let Some((at, name)) = next else { break };
        let Some(gt) = page[at..].find('>').map(|g| at + g + 1) else {
            break;
        };
        let close = format!("</{name}");
        let end = find_ci(page, &close, gt).unwrap_or(page.len());
        let raw = &page[gt..end];
        out.push(Block {
            element: name,
            line: page[..gt].matches('\n').count() + 1,
            text: decode_entities(&strip_tags(raw)),
        });
        i = end.min(page.len());
        if end == page.len() {
            break;
        }
        i += close.len();
    }
    out
}

/// Leaves out the tags inside an element's text (`<b>`, `<span class=..>`, `<br>`), keeping
/// the line breaks, so that lines stay the page's.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let after = &rest[lt + 1..];
        // A tag starts with a letter, `/` or `!`; else `<` is text (`a < b`).
        if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') {
            match after.find('>') {
                Some(gt) => {
                    // The tag's own line breaks are kept.
                    out.extend(after[..gt].chars().filter(|&c| c == '\n'));
                    rest = &after[gt + 1..];
                }
                None => {
                    rest = "";
                }
            }
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Decodes the HTML entities records meet; an unknown one stays as written.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.find(';').filter(|&k| k <= 10);
        let decoded = semi.and_then(|k| {
            let name = &after[..k];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(h) => u32::from_str_radix(h, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code).filter(|c| *c != '\0')
                }
            }?;
            Some((c, k))
        });
        match decoded {
            Some((c, k)) => {
                out.push(c);
                rest = &after[k + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether decoded text is a web page: it starts (after blanks) with `<!DOCTYPE html`,
/// `<html`, `<head`, `<body` or `<meta`, or holds a `<pre>` or `<textarea>` element and an
/// `<html`/`<body` tag.
pub fn looks_like(text: &str) -> bool {
    let head = text.trim_start_matches('\u{feff}').trim_start();
    let starts = ["<!doctype html", "<html", "<head", "<body", "<meta"]
        .iter()
        .any(|p| {
            head.len() >= p.len()
                && head.is_char_boundary(p.len())
                && head[..p.len()].eq_ignore_ascii_case(p)
        });
    starts
        || (find_ci(text, "<body", 0).is_some() || find_ci(text, "<html", 0).is_some())
            && (find_ci(text, "<pre", 0).is_some() || find_ci(text, "<textarea", 0).is_some())
}

/// What a block holds that can be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Holds {
    Pgn,
    ChineseText,
}

/// Whether a block's text is a record, and of which kind.
pub fn holds(text: &str) -> Option<Holds> {
    if crate::cntext::looks_like(text) {
        Some(Holds::ChineseText)
    } else if crate::pgn::looks_like(text) {
        Some(Holds::Pgn)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_entities_and_lines() {
        let page = "<!DOCTYPE html>\n<html><body>\n<p>x</p><PRE class=\"pgn\">[Event &quot;A &amp; B&quot;]\n\
                    1. h2e2 <b>h9g7</b> *</PRE>\n<prefix>no</prefix>\n<textarea rows=3>\n&#x70AE;二平五 *\n</textarea>\n\
                    <pre>a &lt; b &#9999999; &bogus;</pre></body></html>\n";
        assert!(looks_like(page));
        let b = blocks(page);
        assert_eq!(b.len(), 3, "{b:?}");
        assert_eq!(b[0].element, "pre");
        assert_eq!(b[0].line, 3);
        assert_eq!(b[0].text, "[Event \"A & B\"]\n1. h2e2 h9g7 *");
        assert_eq!(b[1].element, "textarea");
        assert_eq!(b[1].line, 6);
        assert_eq!(b[1].text, "\n炮二平五 *\n");
        assert_eq!(b[2].text, "a < b &#9999999; &bogus;");
        assert_eq!(holds(&b[0].text), Some(Holds::Pgn));
        assert_eq!(holds(&b[2].text), None);
        assert!(!looks_like("[Event \"x\"]\n1. h2e2 *"));
        // An unclosed element runs to the end of the page; no panic on a lone `<pre`.
        assert_eq!(blocks("<html><pre>1. h2e2 *").len(), 1);
        assert!(blocks("<html><pre").is_empty());
    }
}
