//! `textwrap.wrap` with CPython's defaults: SkyPilot wraps hint tables with it.

fn is_letter(c: char) -> bool {
    c.is_alphabetic()
}

/// Splits a non-space word where Python's `TextWrapper.wordsep_re` would:
/// after a hyphen preceded by two letters (or letter-hyphen-letter) and
/// followed by a letter.
fn split_hyphenated(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..chars.len() {
        if chars[i] != '-' || i == 0 {
            continue;
        }
        let two_letters = i >= 2 && is_letter(chars[i - 1]) && is_letter(chars[i - 2]);
        let letter_hyphen_letter =
            i >= 3 && is_letter(chars[i - 1]) && chars[i - 2] == '-' && is_letter(chars[i - 3]);
        let next_letter = chars.get(i + 1).is_some_and(|c| is_letter(*c))
            && (chars.get(i + 2).is_some_and(|c| is_letter(*c))
                || (chars.get(i + 2) == Some(&'-')
                    && chars.get(i + 3).is_some_and(|c| is_letter(*c))));
        if (two_letters || letter_hyphen_letter) && next_letter && i + 1 > start {
            out.push(chars[start..=i].iter().collect());
            start = i + 1;
        }
    }
    if start < chars.len() {
        out.push(chars[start..].iter().collect());
    }
    out
}

/// `textwrap.wrap(text, width)` with Python's defaults (hyphen breaking,
/// long words broken, whitespace collapsed to single spaces at line ends).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    // Chunks: runs of whitespace (expanded to single spaces per char) and word pieces.
    let mut chunks: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !word.is_empty() {
                chunks.extend(split_hyphenated(&word));
                word.clear();
            }
            match chunks.last_mut() {
                Some(last) if last.starts_with(' ') => last.push(' '),
                _ => chunks.push(" ".to_string()),
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        chunks.extend(split_hyphenated(&word));
    }
    chunks.reverse();
    let mut lines = Vec::new();
    let len = |s: &str| s.chars().count();
    while !chunks.is_empty() {
        let mut cur: Vec<String> = Vec::new();
        let mut cur_len = 0;
        if chunks.last().is_some_and(|c| c.trim().is_empty()) && !lines.is_empty() {
            chunks.pop();
        }
        while let Some(chunk) = chunks.last() {
            let l = len(chunk);
            if cur_len + l <= width {
                cur_len += l;
                cur.push(chunks.pop().unwrap_or_default());
            } else {
                break;
            }
        }
        if let Some(chunk) = chunks.last()
            && len(chunk) > width
        {
            // Break a long word at the remaining space.
            let space_left = if width > cur_len { width - cur_len } else { 1 };
            let chunk = chunks.pop().unwrap_or_default();
            let head: String = chunk.chars().take(space_left).collect();
            let tail: String = chunk.chars().skip(space_left).collect();
            cur.push(head);
            if !tail.is_empty() {
                chunks.push(tail);
            }
        }
        if cur.last().is_some_and(|c| c.trim().is_empty()) {
            cur.pop();
        }
        if !cur.is_empty() {
            lines.push(cur.concat());
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_on_hyphens_like_python() {
        let text = "Invalid region 'us-east1' Did you mean one of these: 'sa-east-1, us-east-1, us-east-2, us-west-1, us-west-2'?";
        assert_eq!(
            wrap(text, 80),
            vec![
                "Invalid region 'us-east1' Did you mean one of these: 'sa-east-1, us-east-1, us-"
                    .to_string(),
                "east-2, us-west-1, us-west-2'?".to_string()
            ]
        );
    }
}
