//! `difflib.get_close_matches` and the `SequenceMatcher.ratio()` it ranks
//! by, as CPython computes them: SkyPilot's "did you mean" lists.

use std::collections::HashMap;

/// `difflib.SequenceMatcher(None, a, b).ratio()` (no junk; autojunk only
/// matters for sequences of 200+ items, which names never are).
pub fn sequence_ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
    for (j, c) in b.iter().enumerate() {
        b2j.entry(*c).or_default().push(j);
    }
    if b.len() >= 200 {
        // Python's autojunk: characters in more than 1 % of b are junk.
        let ntest = b.len() / 100 + 1;
        b2j.retain(|_, idxs| idxs.len() <= ntest);
    }
    let matches: usize = matching_blocks(&a, &b, &b2j)
        .iter()
        .map(|(_, _, n)| n)
        .sum();
    2.0 * matches as f64 / total as f64
}

fn find_longest_match(
    a: &[char],
    b: &[char],
    b2j: &HashMap<char, Vec<usize>>,
    (alo, ahi, blo, bhi): (usize, usize, usize, usize),
) -> (usize, usize, usize) {
    let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
    let mut j2len: HashMap<usize, usize> = HashMap::new();
    for (i, ch) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut newj2len: HashMap<usize, usize> = HashMap::new();
        if let Some(js) = b2j.get(ch) {
            for &j in js {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = j2len.get(&(j.wrapping_sub(1))).copied().unwrap_or(0) + 1;
                newj2len.insert(j, k);
                if k > bestsize {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestsize = k;
                }
            }
        }
        j2len = newj2len;
    }
    // No junk, so Python's junk-extension loops only extend over equal
    // non-popular elements; with an empty junk set they are no-ops except
    // for autojunked popular characters.
    while besti > alo
        && bestj > blo
        && a[besti - 1] == b[bestj - 1]
        && !b2j.contains_key(&b[bestj - 1])
    {
        besti -= 1;
        bestj -= 1;
        bestsize += 1;
    }
    while besti + bestsize < ahi
        && bestj + bestsize < bhi
        && a[besti + bestsize] == b[bestj + bestsize]
        && !b2j.contains_key(&b[bestj + bestsize])
    {
        bestsize += 1;
    }
    (besti, bestj, bestsize)
}

fn matching_blocks(
    a: &[char],
    b: &[char],
    b2j: &HashMap<char, Vec<usize>>,
) -> Vec<(usize, usize, usize)> {
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut blocks = Vec::new();
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = find_longest_match(a, b, b2j, (alo, ahi, blo, bhi));
        if k > 0 {
            blocks.push((i, j, k));
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    blocks.sort_unstable();
    blocks
}

/// `difflib.get_close_matches(word, possibilities, n, cutoff)`: best first,
/// ties broken by the larger string (Python's `heapq.nlargest` on `(score, x)`).
pub fn close_matches<'a>(
    word: &str,
    possibilities: impl IntoIterator<Item = &'a str>,
    n: usize,
    cutoff: f64,
) -> Vec<String> {
    let mut scored: Vec<(f64, &str)> = possibilities
        .into_iter()
        .filter_map(|x| {
            // SequenceMatcher(a=x, b=word), as get_close_matches sets it up.
            let r = sequence_ratio(x, word);
            (r >= cutoff).then_some((r, x))
        })
        .collect();
    scored.sort_by(|p, q| q.0.total_cmp(&p.0).then_with(|| q.1.cmp(p.1)));
    scored
        .into_iter()
        .take(n)
        .map(|(_, x)| x.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_match_python() {
        // Values from CPython's difflib.
        assert!((sequence_ratio("abcd", "bcde") - 0.75).abs() < 1e-12);
        assert!((sequence_ratio("us-west-2a", "us-west-2-a") - 0.9523809523809523).abs() < 1e-12);
        assert_eq!(sequence_ratio("", ""), 1.0);
    }

    #[test]
    fn close_matches_break_ties_by_larger_string() {
        let got = close_matches("us-east-9", ["us-east-1", "us-east-2", "eu-west-1"], 5, 0.6);
        assert_eq!(got[..2], ["us-east-2".to_string(), "us-east-1".to_string()]);
    }
}
