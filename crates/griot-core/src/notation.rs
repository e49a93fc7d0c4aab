//! Field parsers shared by the games' position notations (docs/NOTATION.md). Each returns a message
//! saying what is wrong; the caller names the field (`NotationError::field`).

use crate::game::Player;
use crate::variant::Variant;

/// `S` or `N`.
pub fn parse_side(text: &str) -> Result<Player, String> {
    Player::from_letter(text).ok_or_else(|| format!("{text:?} is not S or N"))
}

/// A number of turns played, at most `max_turns`.
pub fn parse_turns(text: &str, max_turns: u32) -> Result<u32, String> {
    let turns: u32 = text.parse().map_err(|_| format!("{text:?} is not a number of turns"))?;
    if turns > max_turns {
        return Err(format!("{turns} turns is past the limit of {max_turns}"));
    }
    Ok(turns)
}

/// `<South>-<North>`: one count (0-255) per player, e.g. stores `3-0`. `what` names the count
/// ("store", "carry") and `unit` what is counted ("seed", "counter").
pub fn parse_pair(text: &str, what: &str, unit: &str) -> Result<[u8; 2], String> {
    let (s, n) = text.split_once('-').ok_or_else(|| format!("{text:?} is not <South>-<North>, e.g. 0-0"))?;
    let mut out = [0u8; 2];
    for (k, (who, v)) in [("South", s), ("North", n)].into_iter().enumerate() {
        out[k] = v.parse().map_err(|_| format!("{who}'s {what} {v:?} is not a {unit} count (0-255)"))?;
    }
    Ok(out)
}

/// `a,b,c/d,e,f`: South's row then North's, `holes` counts each, written into `out[..2 * holes]`.
/// Returns their sum. `unit` names what is counted ("seed", "counter").
pub fn parse_two_rows(
    text: &str,
    holes: usize,
    variant: &Variant,
    unit: &str,
    out: &mut [u8],
) -> Result<u32, String> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 2 {
        return Err(format!("expected South's row '/' North's row, found {} row(s)", rows.len()));
    }
    let mut total = 0;
    for (r, row) in rows.iter().enumerate() {
        let who = if r == 0 { "South" } else { "North" };
        let cells: Vec<&str> = row.split(',').collect();
        if cells.len() != holes {
            return Err(format!("{who}'s row has {} holes; {variant} has {holes}", cells.len()));
        }
        for (i, c) in cells.iter().enumerate() {
            let v: u8 = c
                .parse()
                .map_err(|_| format!("hole {} of {who}: {c:?} is not a {unit} count (0-255)", i + 1))?;
            out[r * holes + i] = v;
            total += v as u32;
        }
    }
    Ok(total)
}

/// Counts joined by commas, e.g. `4,4,0,5`.
pub fn format_counts(cells: &[u8]) -> String {
    cells.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::VariantSpec;

    #[test]
    fn two_rows_and_pairs() {
        let v = Variant::resolve(&VariantSpec::parse("x").unwrap(), &[]).unwrap();
        let mut out = [0u8; 4];
        assert_eq!(parse_two_rows("1,2/3,4", 2, &v, "seed", &mut out), Ok(10));
        assert_eq!(out, [1, 2, 3, 4]);
        assert_eq!(
            parse_two_rows("1,2,3/3,4", 2, &v, "seed", &mut out),
            Err("South's row has 3 holes; x has 2".into())
        );
        assert_eq!(
            parse_two_rows("1,2/3,z", 2, &v, "seed", &mut out),
            Err("hole 2 of North: \"z\" is not a seed count (0-255)".into())
        );
        assert_eq!(parse_pair("3-0", "store", "seed"), Ok([3, 0]));
        assert!(parse_pair("3", "store", "seed").is_err());
        assert_eq!(parse_turns("7", 5), Err("7 turns is past the limit of 5".into()));
        assert_eq!(parse_side("N"), Ok(Player::North));
    }
}
