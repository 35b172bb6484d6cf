//! A small XML reader for the XML record formats (CBF, PengFei PFC): elements, attributes,
//! text, CDATA, the five predefined entities and numeric character references; comments,
//! processing instructions and a DOCTYPE are skipped. Errors name the byte offset and the
//! format being read. Neither parsing nor dropping the tree recurses, so deeply nested input
//! (PFC nests every move inside the one before it) cannot overflow the stack.

use crate::rawtree::{Format, ReadError};

#[derive(Debug, Default)]
pub(crate) struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    /// Text and CDATA content directly inside, concatenated.
    pub text: String,
    pub children: Vec<Element>,
    /// Byte offset of the `<` of the start tag (in the input).
    pub at: usize,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

fn xml_err(f: Format, at: usize, msg: impl Into<String>) -> ReadError {
    ReadError::invalid(f, at, format!("XML: {}", msg.into()))
}

fn unescape(f: Format, s: &str, at: usize) -> Result<String, ReadError> {
    if !s.contains('&') {
        return Ok(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        let tail = &rest[k..];
        let end = tail
            .find(';')
            .filter(|&e| e <= 12)
            .ok_or_else(|| xml_err(f, at, "'&' that starts no entity"))?;
        let ent = &tail[1..end];
        let c = match ent {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(h) = ent.strip_prefix("#x").or(ent.strip_prefix("#X")) {
                    u32::from_str_radix(h, 16).ok()
                } else if let Some(d) = ent.strip_prefix('#') {
                    d.parse().ok()
                } else {
                    None
                };
                code.and_then(char::from_u32)
                    .ok_or_else(|| xml_err(f, at, format!("unknown entity &{ent};")))?
            }
        };
        out.push(c);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// Parses a document into its root element, as format `f` (for the errors), refusing elements
/// nested deeper than `max_depth`; `shift` is added to every offset (a BOM cut off before).
pub(crate) fn parse_xml(
    text: &str,
    shift: usize,
    f: Format,
    max_depth: usize,
) -> Result<Element, ReadError> {
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    parse_into(text, shift, f, max_depth, &mut stack, &mut root)?;
    if let Some(open) = stack.last() {
        return Err(never_closed(f, open));
    }
    root.ok_or_else(|| xml_err(f, shift, "no root element"))
}

/// Like [`parse_xml`], but a document that goes wrong after its root element started (cut
/// short, a malformed tag, text or an element after the root) gives what was read before
/// the fault, every element still open closed there, with the fault beside it. A document
/// with no root element read is still the error.
pub(crate) fn parse_xml_salvaging(
    text: &str,
    shift: usize,
    f: Format,
    max_depth: usize,
) -> Result<(Element, Option<ReadError>), ReadError> {
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut fault = parse_into(text, shift, f, max_depth, &mut stack, &mut root).err();
    if fault.is_none() {
        fault = stack.last().map(|open| never_closed(f, open));
    }
    while let Some(el) = stack.pop() {
        match stack.last_mut() {
            Some(parent) => parent.children.push(el),
            None if root.is_none() => root = Some(el),
            None => {}
        }
    }
    match root {
        Some(r) => Ok((r, fault)),
        None => Err(fault.unwrap_or_else(|| xml_err(f, shift, "no root element"))),
    }
}

/// [`parse_xml_salvaging`] when `salvage`, else [`parse_xml`] (with no fault beside it).
pub(crate) fn parse_document(
    text: &str,
    shift: usize,
    f: Format,
    max_depth: usize,
    salvage: bool,
) -> Result<(Element, Option<ReadError>), ReadError> {
    if salvage {
        parse_xml_salvaging(text, shift, f, max_depth)
    } else {
        parse_xml(text, shift, f, max_depth).map(|root| (root, None))
    }
}

/// Parses `text` as [`parse_document`] does and reads the record of its root with `read`
/// (given the root and where a salvaging parse stopped). A fault `read` meets in what was
/// salvaged comes after the XML's in the file, which the strict reading meets first: the
/// XML's fault is then the error, as strictly.
pub(crate) fn read_document<T>(
    text: &str,
    shift: usize,
    f: Format,
    max_depth: usize,
    salvage: bool,
    read: impl FnOnce(Element, Option<ReadError>) -> Result<T, ReadError>,
) -> Result<T, ReadError> {
    let (root, fault) = parse_document(text, shift, f, max_depth, salvage)?;
    let first = fault.clone();
    read(root, fault).map_err(|e| first.unwrap_or(e))
}

/// What a reader says it left out after a fault of the XML (salvaging).
pub(crate) const XML_LEFT_OUT: &str = "the rest of the document, from this byte on, was left out";

fn never_closed(f: Format, open: &Element) -> ReadError {
    xml_err(f, open.at, format!("<{}> is never closed", open.name))
}

/// The parser: elements read go into `stack` (open) and `root` (closed), so that what was read
/// before an error is there to salvage.
fn parse_into(
    text: &str,
    shift: usize,
    f: Format,
    max_depth: usize,
    stack: &mut Vec<Element>,
    root: &mut Option<Element>,
) -> Result<(), ReadError> {
    let mut i = 0usize;
    let b = text.as_bytes();
    while i < b.len() {
        if b[i] != b'<' {
            let k = text[i..].find('<').map(|k| i + k).unwrap_or(b.len());
            let chunk = &text[i..k];
            match stack.last_mut() {
                Some(top) => top.text.push_str(&unescape(f, chunk, shift + i)?),
                None if chunk.trim().is_empty() => {}
                None => return Err(xml_err(f, shift + i, "text outside the root element")),
            }
            i = k;
            continue;
        }
        let rest = &text[i..];
        if rest.starts_with("<?") {
            let k = rest
                .find("?>")
                .ok_or_else(|| xml_err(f, shift + i, "unclosed <?...?>"))?;
            i += k + 2;
        } else if rest.starts_with("<!--") {
            let k = rest
                .find("-->")
                .ok_or_else(|| xml_err(f, shift + i, "unclosed comment"))?;
            i += k + 3;
        } else if rest.starts_with("<![CDATA[") {
            let k = rest
                .find("]]>")
                .ok_or_else(|| xml_err(f, shift + i, "unclosed CDATA section"))?;
            let top = stack
                .last_mut()
                .ok_or_else(|| xml_err(f, shift + i, "CDATA outside the root element"))?;
            top.text.push_str(&rest[9..k]);
            i += k + 3;
        } else if rest.starts_with("<!") {
            let k = rest
                .find('>')
                .ok_or_else(|| xml_err(f, shift + i, "unclosed <!...>"))?;
            i += k + 1;
        } else if let Some(close) = rest.strip_prefix("</") {
            let name_len = close
                .chars()
                .take_while(|&c| is_name_char(c))
                .map(char::len_utf8)
                .sum::<usize>();
            let name = &close[..name_len];
            let after = close[name_len..].trim_start();
            if !after.starts_with('>') {
                return Err(xml_err(f, shift + i, format!("malformed end tag </{name}")));
            }
            let el = stack.pop().ok_or_else(|| {
                xml_err(f, shift + i, format!("end tag </{name}> with nothing open"))
            })?;
            if el.name != name {
                return Err(xml_err(
                    f,
                    shift + i,
                    format!("end tag </{name}> closes <{}>", el.name),
                ));
            }
            let consumed = 2 + name_len + (close[name_len..].len() - after.len()) + 1;
            i += consumed;
            finish(f, stack, root, el, shift + i)?;
        } else {
            // Start tag.
            let at = i;
            let mut j = i + 1;
            let name_len = text[j..]
                .chars()
                .take_while(|&c| is_name_char(c))
                .map(char::len_utf8)
                .sum::<usize>();
            if name_len == 0 {
                return Err(xml_err(f, shift + at, "'<' that starts no tag"));
            }
            let mut el = Element {
                name: text[j..j + name_len].to_owned(),
                attrs: Vec::new(),
                text: String::new(),
                children: Vec::new(),
                at: shift + at,
            };
            j += name_len;
            let self_closing;
            loop {
                let t = &text[j..];
                let trimmed = t.trim_start();
                j += t.len() - trimmed.len();
                if trimmed.starts_with("/>") {
                    self_closing = true;
                    j += 2;
                    break;
                }
                if trimmed.starts_with('>') {
                    self_closing = false;
                    j += 1;
                    break;
                }
                let an = trimmed
                    .chars()
                    .take_while(|&c| is_name_char(c))
                    .map(char::len_utf8)
                    .sum::<usize>();
                if an == 0 {
                    return Err(xml_err(
                        f,
                        shift + j,
                        format!("malformed attribute in <{}>", el.name),
                    ));
                }
                let aname = trimmed[..an].to_owned();
                let t2 = trimmed[an..].trim_start();
                let Some(t3) = t2.strip_prefix('=') else {
                    return Err(xml_err(
                        f,
                        shift + j,
                        format!("attribute {aname} without a value"),
                    ));
                };
                let t3 = t3.trim_start();
                let q = t3.chars().next();
                let Some(q @ ('"' | '\'')) = q else {
                    return Err(xml_err(
                        f,
                        shift + j,
                        format!("attribute {aname}'s value is not quoted"),
                    ));
                };
                let Some(vend) = t3[1..].find(q) else {
                    return Err(xml_err(
                        f,
                        shift + j,
                        format!("attribute {aname}'s value is not closed"),
                    ));
                };
                let raw = &t3[1..1 + vend];
                let consumed = trimmed.len() - t3.len() + vend + 2;
                el.attrs.push((aname, unescape(f, raw, shift + j)?));
                j += consumed;
            }
            i = j;
            if self_closing {
                finish(f, stack, root, el, shift + i)?;
            } else {
                if stack.len() >= max_depth {
                    return Err(xml_err(
                        f,
                        shift + at,
                        format!("elements nested more than {max_depth} deep"),
                    ));
                }
                stack.push(el);
            }
        }
    }
    Ok(())
}

fn finish(
    f: Format,
    stack: &mut [Element],
    root: &mut Option<Element>,
    el: Element,
    at: usize,
) -> Result<(), ReadError> {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None if root.is_none() => *root = Some(el),
        None => return Err(xml_err(f, at, "a second root element")),
    }
    Ok(())
}

impl Drop for Element {
    /// Drops the subtree without recursing: the children are moved onto a list and emptied
    /// one by one.
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut e) = pending.pop() {
            pending.append(&mut e.children);
        }
    }
}
