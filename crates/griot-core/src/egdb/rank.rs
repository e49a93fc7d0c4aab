//! Stars-and-bars ranking: the boards of `holes` holes holding `seeds` seeds in all, numbered
//! `0..count` in lexicographic order of their hole counts (hole 0 most significant). The rank is a
//! sum of binomial coefficients, so a level needs no hash table and no stored keys.

/// Ranks and unranks the boards of one size and one seed count.
#[derive(Clone, Debug)]
pub struct Ranker {
    holes: usize,
    seeds: usize,
    /// `ways[k][t]`: boards of `k` holes holding `t` seeds, `C(t + k - 1, k - 1)`.
    ways: Vec<Vec<u64>>,
}

impl Ranker {
    /// The ranker for `holes` holes and `seeds` seeds; `None` when the count overflows `u64`.
    pub fn new(holes: usize, seeds: usize) -> Option<Ranker> {
        let mut ways = vec![vec![0u64; seeds + 1]; holes + 1];
        // No holes: only the empty board.
        ways[0][0] = 1;
        for k in 1..=holes {
            let mut acc = 0u64;
            let (before, rest) = ways.split_at_mut(k);
            for (w, &prev) in rest[0].iter_mut().zip(&before[k - 1]) {
                // Boards of k holes with t seeds = sum over the first hole's count.
                acc = acc.checked_add(prev)?;
                *w = acc;
            }
        }
        Some(Ranker { holes, seeds, ways })
    }

    /// How many boards there are.
    pub fn count(&self) -> u64 {
        self.ways[self.holes][self.seeds]
    }

    /// The rank of `board` (its `holes` counts must add up to `seeds`).
    pub fn rank(&self, board: &[u8]) -> u64 {
        debug_assert_eq!(board.len(), self.holes);
        let mut left = self.seeds;
        let mut r = 0u64;
        for (i, &c) in board[..self.holes - 1].iter().enumerate() {
            let k = self.holes - i;
            let c = c as usize;
            // Boards whose hole i holds fewer than c: every way of sharing `left` seeds over the
            // k holes less the ways where hole i holds c or more.
            r += self.ways[k][left] - self.ways[k][left - c];
            left -= c;
        }
        r
    }

    /// The board of rank `r` (below [`Ranker::count`]) into `board[..holes]`.
    pub fn unrank(&self, mut r: u64, board: &mut [u8]) {
        let mut left = self.seeds;
        for (i, out) in board[..self.holes - 1].iter_mut().enumerate() {
            let k = self.holes - i;
            let mut c = 0;
            // The largest c whose boards below it do not exceed r.
            while c < left && self.ways[k][left] - self.ways[k][left - c - 1] <= r {
                c += 1;
            }
            r -= self.ways[k][left] - self.ways[k][left - c];
            *out = c as u8;
            left -= c;
        }
        board[self.holes - 1] = left as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board of `holes` holes with `seeds` seeds after `prefix`, in lexicographic order.
    fn every_board(holes: usize, seeds: usize, prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if prefix.len() + 1 == holes {
            prefix.push(seeds as u8);
            out.push(prefix.clone());
            prefix.pop();
            return;
        }
        for c in 0..=seeds {
            prefix.push(c as u8);
            every_board(holes, seeds - c, prefix, out);
            prefix.pop();
        }
    }

    #[test]
    fn ranks_are_a_bijection_in_lexicographic_order() {
        for holes in 1..=6 {
            for seeds in 0..=7 {
                let rk = Ranker::new(holes, seeds).unwrap();
                let mut boards = Vec::new();
                every_board(holes, seeds, &mut Vec::new(), &mut boards);
                assert_eq!(rk.count(), boards.len() as u64, "{holes} {seeds}");
                let mut out = vec![0u8; holes];
                for (r, board) in boards.iter().enumerate() {
                    assert_eq!(rk.rank(board), r as u64, "{board:?}");
                    rk.unrank(r as u64, &mut out);
                    assert_eq!(&out, board);
                }
            }
        }
    }

    #[test]
    fn counts_are_binomials() {
        // C(20 + 12 - 1, 11) boards of 20 seeds on 12 holes.
        assert_eq!(Ranker::new(12, 20).unwrap().count(), 84_672_315);
        assert_eq!(Ranker::new(12, 48).unwrap().count(), 279_871_768_995);
    }
}
